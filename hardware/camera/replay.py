"""A camera that plays photos as if dice were rolled in a real tray: the demo camera.

Each photo is held still for `hold` seconds (so a settle detector sees the dice
stop), preceded by a short "moving" transition (frames that change every tick), so
the whole pipeline behaves as on the table. Time comes from an injected clock and
nothing sleeps. `hold=None` waits on `next_photo()` from the app instead.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from hardware.camera.base import Camera, CameraError, CameraSpecError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


def images_in(folder: Path) -> list[Path]:
    """The image files directly in `folder` (or its `images/` subfolder), sorted by name."""
    if (folder / "images").is_dir():
        folder = folder / "images"
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)


def bundled_samples() -> list[Path]:
    """Every sample photo shipped with `vision` (vision/samples/<set>/images/*), sorted."""
    try:
        root = resources.files("vision") / "samples"
    except ModuleNotFoundError:
        return []
    if not root.is_dir():
        return []
    found: list[Path] = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        images = entry / "images"
        if images.is_dir():
            found.extend(images_in(Path(str(images))))
    return found


def resolve_paths(sources: Iterable[str | Path]) -> list[Path]:
    """Folders expand to their images; files are kept in the order given."""
    paths: list[Path] = []
    for source in sources:
        path = Path(source).expanduser()
        if path.is_dir():
            paths.extend(images_in(path))
        elif path.is_file():
            paths.append(path)
        else:
            raise CameraSpecError(f"replay: no such photo or folder: {path}")
    return paths


def fit(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Scale `image` to fit (width, height) without distorting the dice; pad the rest black."""
    import cv2

    width, height = int(size[0]), int(size[1])
    if (image.shape[1], image.shape[0]) == (width, height):
        return image
    scale = min(width / image.shape[1], height / image.shape[0])
    new_w = max(1, round(image.shape[1] * scale))
    new_h = max(1, round(image.shape[0] * scale))
    scaled = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_AREA)
    out = np.zeros((height, width, 3), np.uint8)
    top, left = (height - new_h) // 2, (width - new_w) // 2
    out[top : top + new_h, left : left + new_w] = scaled
    return out


class ReplayCamera(Camera):
    """Plays `paths` (image files or folders) in order, looping; frames are BGR arrays.

    hold: seconds each photo stays still (None = until `next_photo()`).
    transition: seconds of "moving" frames before each photo.
    size: (width, height) of every frame, or None for the first photo's size; photos of
          another shape are scaled to fit and padded, so frames never change size.
    """

    name = "replay"

    def __init__(
        self,
        paths: Sequence[str | Path] | None = None,
        *,
        hold: float | None = 4.0,
        transition: float = 0.8,
        size: tuple[int, int] | None = None,
        loop: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        files = resolve_paths(paths) if paths is not None else bundled_samples()
        if not files:
            where = "the given paths" if paths is not None else "the bundled vision samples"
            raise CameraSpecError(f"replay: no photos (.jpg/.png) found in {where}")
        if hold is not None and hold <= 0:
            raise CameraSpecError(f"replay: hold must be positive seconds or None, got {hold}")
        if transition < 0:
            raise CameraSpecError(f"replay: transition must be >= 0 seconds, got {transition}")
        self.paths = files
        self.hold = hold
        self.transition = float(transition)
        self.size = size
        self.loop = loop
        self._clock = clock
        self._cache: dict[int, np.ndarray] = {}
        self._index = 0
        self._shown_from = clock()
        self._next: tuple[int, float] | None = None  # (photo, when) of a move asked for
        self._lock = threading.Lock()  # the app moves the photo while the camera loop reads

    @property
    def index(self) -> int:
        """Index (into `paths`) of the photo being shown or moved towards now."""
        with self._lock:
            self._advance(self._clock())
            return self._index

    def next_photo(self) -> None:
        """Start the move to the next photo now (the app's "roll again")."""
        with self._lock:
            self._advance(self._clock())
            self._step()
            self._shown_from = self._clock()

    def show(self, index: int, *, after: float = 0.0) -> None:
        """Move to photo `index` (the same one again included) in `after` seconds, the
        time a player takes to throw: the photo shown stays still until then."""
        if not 0 <= index < len(self.paths):
            raise CameraSpecError(f"replay: no photo {index}; there are {len(self.paths)}")
        with self._lock:
            self._next = (index, self._clock() + max(0.0, after))

    def is_moving(self) -> bool:
        """True while the transition frames are being shown."""
        with self._lock:
            now = self._clock()
            self._advance(now)
            return now - self._shown_from < self.transition

    def _step(self) -> None:
        last = len(self.paths) - 1
        self._index = 0 if self._index >= last and self.loop else min(self._index + 1, last)

    def _advance(self, now: float) -> None:
        if self._next is not None and now >= self._next[1]:
            self._index, self._shown_from = self._next
            self._next = None
        if self.hold is None:
            return
        period = self.transition + self.hold
        while now - self._shown_from >= period:
            if self._index == len(self.paths) - 1 and not self.loop:
                return
            self._step()
            self._shown_from += period

    def _read(self) -> np.ndarray:
        with self._lock:
            now = self._clock()
            self._advance(now)
            index, shown_from = self._index, self._shown_from
        photo = self._photo(index)
        progress = (now - shown_from) / self.transition if self.transition else 1.0
        if progress >= 1.0:
            return photo.copy()
        return self._moving(photo, progress)

    def _moving(self, photo: np.ndarray, progress: float) -> np.ndarray:
        """A frame mid-roll: the photo slides in and brightens, so successive frames differ."""
        _height, width = photo.shape[:2]
        shift = round((1.0 - progress) * width * 0.25)
        frame = np.zeros_like(photo)
        frame[:, shift:] = photo[:, : width - shift]
        scale = 0.5 + 0.5 * progress
        return (frame.astype(np.float32) * scale).astype(np.uint8)

    def _photo(self, index: int) -> np.ndarray:
        if self.size is None and index != 0:
            self._photo(0)  # the first photo fixes the frame size
        cached = self._cache.get(index)
        if cached is not None:
            return cached
        import cv2

        path = self.paths[index]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraError(f"replay: could not read the photo {path}")
        if self.size is None:
            self.size = (image.shape[1], image.shape[0])  # like a camera: one frame size throughout
        image = fit(image, self.size)
        if len(self._cache) > 32:
            self._cache.clear()
        self._cache[index] = image
        return image

    def _release(self) -> None:
        self._cache.clear()
