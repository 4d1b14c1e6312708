"""Run the real LED stack (our NeoPixelSpiStrip -> neopixel_spi -> PixelBuf -> Blinka's board.SPI()
-> busio -> Adafruit_PureIO) on a stand-in for the Linux kernel: only /dev/spidev0.0, its ioctls
and spidev's `bufsiz` parameter are faked.

    python spidev_kernel.py '{"runs": [{"count": 3, "order": "GRB", "frames": [[[255, 0, 0], ...]]}],
                              "bufsiz": 4096, "spi": true, "board": "RASPBERRY_PI_4B", "missing": []}'

Run in a fresh process because Blinka picks its board once, at import, from
BLINKA_FORCEBOARD / BLINKA_FORCECHIP (adafruit_platformdetect reads them). Prints JSON:
one {"opened": bool, "transfers": [hex, ...], "error": "...", "error_type": "..."} per run.
The kernel side follows drivers/spi/spidev.c: a transfer longer than `bufsiz` fails with
EMSGSIZE; each SPI_IOC_MESSAGE is one transfer on the wire.
"""
from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import struct
import sys
import tempfile

DEVICE = "/dev/spidev0.0"
args = json.loads(sys.argv[1])
os.environ.setdefault("BLINKA_FORCEBOARD", args.get("board", "RASPBERRY_PI_4B"))
os.environ.setdefault("BLINKA_FORCECHIP", "BCM2XXX")
for name in args.get("missing", []):  # a platform package that is not installed
    sys.modules[name] = None  # type: ignore[assignment]

bufsiz = int(args.get("bufsiz", 4096))
transfers: list[bytes] = []
settings: dict[int, int] = {}
real_exists, real_open, real_ioctl = os.path.exists, os.open, fcntl.ioctl
spi_enabled = args.get("spi", True)


def exists(path: object) -> bool:
    if path == DEVICE:
        return spi_enabled
    return real_exists(path)  # type: ignore[arg-type]


def open_(path: object, flags: int, *rest: int) -> int:
    if path == DEVICE:
        if not spi_enabled:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", DEVICE)
        return real_open(os.devnull, os.O_RDWR)
    return real_open(path, flags, *rest)  # type: ignore[arg-type]


def ioctl(fd: int, request: int, arg: object = 0, mutate: bool = True) -> object:
    from Adafruit_PureIO.spi import SPI

    if request == SPI._IOC_MESSAGE:
        fields = struct.unpack(SPI._IOC_TRANSFER_FORMAT, arg)  # type: ignore[arg-type]
        tx_buf, length = fields[0], fields[2]
        if length > bufsiz:
            raise OSError(errno.EMSGSIZE, "Message too long")
        transfers.append(ctypes.string_at(tx_buf, length))
        return length
    if isinstance(arg, (bytes, bytearray)):  # a write: mode, speed, bits per word
        settings[request] = int.from_bytes(arg[:4], sys.byteorder)
        return 0
    if hasattr(arg, "__setitem__"):  # a read into an array
        arg[0] = settings.get(request, 0)  # type: ignore[index]
        return 0
    return real_ioctl(fd, request, arg, mutate)  # type: ignore[call-overload]


os.path.exists = exists  # type: ignore[assignment]
os.open = open_  # type: ignore[assignment]
fcntl.ioctl = ioctl  # type: ignore[assignment]  # before Adafruit_PureIO imports it

from hardware.leds import neopixel

param = os.path.join(tempfile.mkdtemp(), "bufsiz")
with open(param, "w") as fh:
    fh.write(f"{bufsiz}\n")
neopixel.BUFSIZ_PARAM = neopixel.Path(param)

from hardware.leds import StripConfig, open_strip


def run(job: dict) -> dict[str, object]:
    """Open a strip as `serve` does, show the frames, close it; what went over the wire."""
    transfers.clear()
    result: dict[str, object] = {"opened": False}
    try:
        strip = open_strip(StripConfig(backend="neopixel_spi", count=int(job["count"]),
                                       pixel_order=job.get("order", "GRB"), brightness=1.0,
                                       gamma=1.0))
        result["opened"] = True
        for frame in job.get("frames", []):
            strip.show([tuple(p) for p in frame])
        strip.close()
    except Exception as exc:  # noqa: BLE001 - reported to the test
        result.update(error=str(exc), error_type=type(exc).__name__)
    result["transfers"] = [t.hex() for t in transfers]
    return result


print(json.dumps([run(job) for job in args["runs"]]))
