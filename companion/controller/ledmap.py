"""Where each tray LED is in the camera picture: light them one by one and look.

The wizard lights one LED of the layout's tray segment at a time (a scene with a
single settable position), waits for a fresh camera frame, and takes the brightest
change against a dark frame as that LED's place. LEDs the camera cannot see are left
out; the table lights the nearest mapped LED for each die.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

MIN_CHANGE = 40  # grey levels: less than this is not an LED coming on


def light_spot(dark: np.ndarray, lit: np.ndarray, *, min_change: int = MIN_CHANGE
               ) -> tuple[float, float] | None:
    """Centre (x, y) of the brightest new light between two frames, or None if nothing lit up."""
    diff = cv2.absdiff(cv2.cvtColor(lit, cv2.COLOR_BGR2GRAY), cv2.cvtColor(dark, cv2.COLOR_BGR2GRAY))
    diff = cv2.GaussianBlur(diff, (5, 5), 0)
    _, peak, _, _ = cv2.minMaxLoc(diff)
    if peak < min_change:
        return None
    mask = (diff >= 0.6 * peak).astype(np.uint8)
    _, labels, _, centroids = cv2.connectedComponentsWithStats(mask)
    y, x = np.unravel_index(int(np.argmax(diff)), diff.shape)
    cx, cy = centroids[labels[y, x]]
    return (round(float(cx), 1), round(float(cy), 1))


def map_leds(
    driver: Any,
    frame: Callable[[], np.ndarray | None],
    *,
    wait: float = 0.35,
    sleep: Callable[[float], None] = time.sleep,
) -> list[tuple[int, float, float]]:
    """(LED index, x, y) for every tray LED the camera saw light up, in strip order."""
    from hardware.leds import Scene

    tray = driver.layout.tray
    if tray is None:
        raise ValueError("The LED layout has no tray segment to map.")
    order = list(tray.indices())
    driver.scene = Scene()
    sleep(wait)
    dark = frame()
    if dark is None:
        raise ValueError("No camera picture yet: the LEDs are found on the camera's view.")
    found = []
    for k, index in enumerate(order):
        driver.scene = Scene(settable=(k / max(1, len(order) - 1),))
        sleep(wait)
        lit = frame()
        spot = None if lit is None else light_spot(dark, lit)
        if spot is not None:
            found.append((index, *spot))
    driver.scene = Scene()
    return found
