"""After the render: the lens's distortion, then what a camera adds (numpy/OpenCV).

Blender renders an ideal pinhole picture a little wider than the frame; `distort_frame`
bends it (and the object-index picture the labels come from, the same way) into the
frame a wide lens gives. `finish` adds auto-exposure, vignetting, blur, motion, sensor noise and the
JPEG's losses, and returns the JPEG's bytes with the very picture they decode to.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from vision.training.render import geometry
from vision.training.render.scene import PostSpec, SceneSpec

MAX_OVERSCAN = 1.25  # the render is at most this much wider than the frame


def render_size(scene: SceneSpec) -> tuple[int, int, float]:
    """(width, height, focal px) of the pinhole render that `distort_frame` turns into
    the scene's frame: wide enough for every pixel the distorted frame needs."""
    w, h, f, k1 = scene.width, scene.height, scene.focal(), scene.camera.k1
    if k1 == 0:
        return w, h, f
    t = np.linspace(0, 1, 33)
    border = np.concatenate([np.stack([t * w, np.zeros_like(t)], 1),
                             np.stack([t * w, np.full_like(t, h)], 1),
                             np.stack([np.zeros_like(t), t * h], 1),
                             np.stack([np.full_like(t, w), t * h], 1)])
    xy = np.abs(geometry.undistort(geometry.from_pixels(border, w, h, f), k1))
    ax, ay = xy.max(axis=0)
    scale = min(1.0, MAX_OVERSCAN * w / (2 * ax * f))
    fr = f * scale
    return 2 * math.ceil(ax * fr + 1), 2 * math.ceil(ay * fr + 1), fr


def distort_frame(rendered: np.ndarray, ids: np.ndarray, scene: SceneSpec
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The pinhole render (and its object ids) as the scene's lens sees it, at the
    scene's frame size; unchanged when the lens has no distortion."""
    w, h, f = scene.width, scene.height, scene.focal()
    wr, hr, fr = render_size(scene)
    if (wr, hr) == (w, h) and scene.camera.k1 == 0:
        return rendered, ids
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    uv = np.stack([xx.ravel() + 0.5, yy.ravel() + 0.5], 1)
    src = geometry.to_pixels(geometry.undistort(geometry.from_pixels(uv, w, h, f),
                                                scene.camera.k1), wr, hr, fr) - 0.5
    mx = src[:, 0].reshape(h, w).astype(np.float32)
    my = src[:, 1].reshape(h, w).astype(np.float32)
    image = cv2.remap(rendered, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    out_ids = cv2.remap(ids.astype(np.float32), mx, my, cv2.INTER_NEAREST,
                        borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return image, out_ids.astype(ids.dtype)


def auto_expose(image: np.ndarray, stops: float) -> tuple[np.ndarray, float]:
    """(picture, gain) as a camera's auto-exposure makes it: the mean brought to 18%
    grey in linear light, then `stops` over or under; the gain is kept within what a
    camera can do (1/4 to 16), so a very dark or bright table stays so."""
    lin = np.where(image <= 0.04045, image / 12.92, ((image + 0.055) / 1.055) ** 2.4)
    mean = float(np.mean(lin @ np.array([0.114, 0.587, 0.299], np.float32)))
    gain = float(np.clip(0.18 * 2.0 ** stops / max(mean, 1e-4), 0.25, 16.0))
    lin = np.clip(lin * gain, 0, 1)
    out = np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)
    return out.astype(np.float32), gain


def _motion_kernel(length: float, angle: float) -> np.ndarray:
    size = math.ceil(length) | 1
    k = np.zeros((size, size), np.float32)
    c = size // 2
    dx, dy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    for t in np.linspace(-length / 2, length / 2, 4 * size):
        k[round(c + t * dy), round(c + t * dx)] = 1
    return k / k.sum()


def finish(image: np.ndarray, post: PostSpec, rng: np.random.Generator
           ) -> tuple[np.ndarray, bytes]:
    """(BGR uint8 picture, its JPEG bytes) from the float BGR render (0-1): vignetting,
    blur, motion blur, sensor noise (brighter pixels noisier), JPEG at `post.jpeg`, after the camera's auto-exposure.
    The picture returned is the decoded JPEG, exactly what a reader of the file gets."""
    img, gain = auto_expose(image.astype(np.float32), post.exposure)
    h, w = img.shape[:2]
    if post.vignette:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        img *= (1 - post.vignette * r2)[..., None]
    if post.blur > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), post.blur)
    if post.motion >= 1:
        img = cv2.filter2D(img, -1, _motion_kernel(post.motion, post.motion_angle))
    # a camera brightening a dark scene turns its gain up, and its noise with it
    sigma = post.noise / 255 * np.sqrt(np.clip(img, 0, 1) / 0.5 + 0.1) * min(gain, 4) ** 0.5
    noise = rng.standard_normal(img.shape).astype(np.float32)
    if rng.random() < 0.5:  # chroma noise is blotchy after a camera's demosaicing
        noise = cv2.GaussianBlur(noise, (0, 0), 0.7) * 1.8
    img = img + sigma * noise
    out = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(post.jpeg)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(data, cv2.IMREAD_COLOR), data.tobytes()
