"""Devices behind small interfaces: cameras, LED strip, buttons; a real backend and a working fake for each."""
