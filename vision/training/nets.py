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


class TopFaceNet(nn.Module):
    """Input (N,3,48,48): a candidate die cut 1.8 face sides wide (vision.topface), scaled
    to 0..1 minus 0.5; output (N,3): where its top face is, as the centre's offset from
    the cut's centre in candidate face sides (x, y) and log(top face side / candidate
    side)."""

    def __init__(self, width: int = 12, size: int = 48) -> None:
        super().__init__()
        w = width
        self.body = nn.Sequential(
            _block(3, w, 2), _block(w, 2 * w), _block(2 * w, 2 * w, 2), _block(2 * w, 4 * w, 2),
            nn.Flatten())  # size / 8 cells a side kept: where the face lies is the answer
        cells = size // 8
        self.head = nn.Sequential(nn.Linear(4 * w * cells * cells, 64), nn.ReLU(inplace=True),
                                  nn.Linear(64, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def load_onnx(net: nn.Module, path: str) -> nn.Module:
    """Start `net` (a Detector or FaceNet of the same widths) from trained weights in an
    ONNX file written by train.export, for fine-tuning. The export folded each batch norm
    into the convolution before it, so each BatchNorm2d becomes the identity plus the
    folded bias; keep them in eval mode while training (freeze_norms), or the batch
    statistics would change what the network computes."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    layers = [m for m in net.modules() if isinstance(m, nn.Conv2d)]
    if len(convs) != len(layers):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(layers)}")
    with torch.no_grad():
        for node, conv in zip(convs, layers):
            w = torch.from_numpy(init[node.input[1]].copy())
            if w.shape != conv.weight.shape:
                raise ValueError(f"{path}: a convolution of shape {tuple(w.shape)} where the "
                                 f"network has {tuple(conv.weight.shape)} (another width?)")
            conv.weight.copy_(w)
            b = torch.from_numpy(init[node.input[2]].copy())
            if conv.bias is not None:
                conv.bias.copy_(b)
                continue
            norm = _norm_after(net, conv)
            norm.weight.fill_(1.0)
            norm.bias.copy_(b)
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        if isinstance(net, FaceNet):
            gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
            net.fc.weight.copy_(torch.from_numpy(init[gemm.input[1]].copy()))
            net.fc.bias.copy_(torch.from_numpy(init[gemm.input[2]].copy()))
    return net


def _norm_after(net: nn.Module, conv: nn.Conv2d) -> nn.BatchNorm2d:
    for block in net.modules():
        if isinstance(block, nn.Sequential) and len(block) == 3 and block[0] is conv:
            return block[1]
    raise ValueError("a convolution without bias and without a batch norm after it")


def freeze_norms(net: nn.Module) -> nn.Module:
    """Put every batch norm in eval mode (running statistics, not the batch's)."""
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
    return net
