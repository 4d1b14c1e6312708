"""Learning the table's own dice from the phone page: `learn-dice` run in the background.

The Table tab's "Learn our dice" button starts it (POST /api/dice/learn); the learning
(vision/adapt.py: refit the classifiers' last layer on DATA/dice-photos, check the new
weights on the held-out photos, install them as DATA/our-dice only when no worse) runs
in its own thread, one at a time, while the game goes on. When new weights are
installed the reader switches to them at once (the next roll is read with them), unless
`models` under [camera] names other weights.
"""
from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

Learn = Callable[..., Any]  # vision.adapt.learn_and_install


class DiceLearning:
    """One learning job at a time, and what the phones should say about it."""

    def __init__(self, photos: Path, dest: Path, *, base: Path, current: Callable[[], Path],
                 profile: Callable[[], Any], use_new: bool,
                 on_change: Callable[[], None] = lambda: None,
                 learn: Learn | None = None) -> None:
        """photos: the photo log's folder; dest: where new weights go (DATA/our-dice);
        base: the weights to start from; current(): the weights the reader uses now;
        profile(): the calibration profile; use_new: switch the reader to new weights
        once installed; on_change(): the phones should be told (status changed)."""
        self.photos, self.dest, self.base = Path(photos), Path(dest), Path(base)
        self.current, self.profile, self.use_new = current, profile, use_new
        self.on_change = on_change
        self._learn = learn
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._status: dict[str, Any] = {"running": False, "installed": None, "lines": []}

    def status(self) -> dict[str, Any]:
        """{"running", "installed" (None before the first run), "lines"}."""
        with self._lock:
            return {**self._status, "lines": list(self._status["lines"])}

    def start(self) -> bool:
        """Start learning in the background; False when it is running already."""
        with self._lock:
            if self._status["running"]:
                return False
            self._status = {"running": True, "installed": None,
                            "lines": ["Learning your dice from the kept photos..."]}
            self._thread = threading.Thread(target=self._run, name="learn-dice", daemon=True)
            self._thread.start()
        self.on_change()
        return True

    def join(self, timeout: float | None = None) -> None:
        """Wait for the running job (tests, shutdown)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        from vision.adapt import AdaptError

        learn = self._learn
        if learn is None:
            from vision.adapt import learn_and_install as learn
        try:
            outcome = learn(self.photos, self.dest, base=self.base, current=self.current(),
                            profile=self.profile())
            installed, lines = bool(outcome.installed), list(outcome.lines)
            if installed and self.use_new:
                os.environ["DICE_MODELS"] = str(self.dest)  # vision.onnxnets.model_dir
                lines.append("The camera reads your dice with the new weights from now on.")
            elif installed:
                lines.append(f"Installed in {self.dest}, but `models` under [camera] names "
                             "other weights, which the table keeps using.")
        except (AdaptError, OSError, ValueError) as err:
            installed, lines = False, [str(err)]
        except Exception as err:  # a bug must not kill the table: say it
            log.exception("learning the dice failed")
            installed, lines = False, [f"Learning failed: {err}"]
        with self._lock:
            self._status = {"running": False, "installed": installed, "lines": lines}
        self.on_change()
