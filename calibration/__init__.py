"""Calibration procedures (tray, colours, Event-die faces, LED positions) and the profile format."""
