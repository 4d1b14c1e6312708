"""Devices behind small interfaces: cameras, LED strip, buttons; a real backend and a working fake for each.

    hardware.camera   open_camera("picamera" | "usb:N" | "replay[:DIR|FILES]"), CameraSupervisor
    hardware.leds     Scene, LedLayout, render_scene, open_strip, LedDriver, RecordingStrip
    hardware.buttons  Buttons (roll, stop, undo; long press = "undo_long")
    hardware.probe    Pi: the board, cameras, SPI, pins, service, network (dragon-farkle doctor)

Hardware libraries (picamera2, neopixel_spi, gpiozero) are imported only inside their backends.
"""
