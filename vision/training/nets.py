"""The two small networks: a centre-heatmap die detector and a face classifier."""
from __future__ import annotations

import torch
from torch import nn

FACE_CLASSES = 8  # 0-5 = faces 1-6, 6 = face without pips (Event die), 7 = not a die


def _block(cin: int, cout: int, stride: int = 1, dil: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dil, dilation=dil, bias=False),
        nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Detector(nn.Module):
    """Input (N,3,H,W) scaled to 0..1 minus 0.5, H,W multiples of 4; output (N,4,H/4,W/4):
    centre logit, log(face side / 16 input px), x and y offset of the centre within its cell."""

    def __init__(self, width: int = 24) -> None:
        super().__init__()
        self.body = nn.Sequential(
            _block(3, 16, 2), _block(16, width, 2), _block(width, width),
            _block(width, width, dil=2), _block(width, width, dil=4))
        self.head = nn.Conv2d(width, 4, 1)
        nn.init.constant_(self.head.bias, 0.0)
        with torch.no_grad():
            self.head.bias[0] = -4.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


class FaceNet(nn.Module):
    """Input (N,3,S,S) crop of one die (side = 1.25 x face side) scaled to 0..1 minus 0.5,
    S a multiple of 12 (36 by default); output (N, FACE_CLASSES) logits."""

    def __init__(self, width: int = 12, crop: int = 36, norm: bool = False) -> None:
        super().__init__()
        self.norm = norm  # standardise each crop's channels first (dark dice, dim light)
        w = width
        self.body = nn.Sequential(
            _block(3, w), _block(w, 2 * w, 2), _block(2 * w, 2 * w), _block(2 * w, 4 * w, 2),
            _block(4 * w, 4 * w),
            nn.AvgPool2d(crop // 12), nn.Flatten())  # 3x3 cells kept: where the pips are matters
        self.fc = nn.Linear(4 * w * 9, FACE_CLASSES)

    def features(self, x: torch.Tensor) -> torch.Tensor:
        """What the last layer (fc) reads: the pooled 3x3 cells (N, 4 * width * 9)."""
        if self.norm:
            x = x - x.mean(dim=(2, 3), keepdim=True)
            x = x / torch.sqrt((x * x).mean(dim=(2, 3), keepdim=True) + 4e-4)
        return self.body(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x))
