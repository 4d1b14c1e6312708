"""Perception: pure functions from camera frames (BGR numpy arrays) to dice readings."""
