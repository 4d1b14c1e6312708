"""Copy the bundled sample photos (package data vision/samples/<set>/) from the data sets.

    python -m vision.training.make_samples [--data ../shared/data/dice]

Takes an even spread of each set's validation photos (so the samples show what the
reader does on photos the development model never saw), with the set's LICENSE and
ATTRIBUTION.md and a manifest.json holding only those photos.
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from vision.training.data import is_validation

COUNTS = {"byler-2019-12-08": 12, "matteop65-train": 14}
OUT = Path(__file__).resolve().parent.parent / "samples"


def make(data: Path, out: Path = OUT) -> None:
    for name, count in COUNTS.items():
        src = data / name
        manifest = json.loads((src / "manifest.json").read_text())
        pool = sorted((e for e in manifest["images"] if is_validation(name, e)),
                      key=lambda e: e["file"])
        step = len(pool) / count
        chosen = [pool[int(i * step)] for i in range(count)]
        dst = out / name
        (dst / "images").mkdir(parents=True, exist_ok=True)
        for e in chosen:
            shutil.copyfile(src / e["file"], dst / e["file"])
        for f in ("LICENSE", "ATTRIBUTION.md"):
            shutil.copyfile(src / f, dst / f)
        sub = {k: v for k, v in manifest.items() if k != "images"}
        sub["subset_of"] = f"the public photo set {name} (vision/training/make_samples.py)"
        sub["n_images"] = len(chosen)
        sub["n_dice"] = sum(len(e["dice"]) for e in chosen)
        sub["images"] = chosen
        (dst / "manifest.json").write_text(json.dumps(sub, indent=1) + "\n")
        print(f"{name}: {len(chosen)} photos, {sub['n_dice']} dice -> {dst}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/dice"))
    make(ap.parse_args().data)
