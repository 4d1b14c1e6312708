"""The table's process keeps OpenBLAS to one thread (companion/__init__.py): set before
numpy loads, so it takes effect, and a value the user set is kept."""
from __future__ import annotations

import os
import subprocess
import sys

CHECK = ("import sys, os, companion; "
         "print('numpy' in sys.modules, os.environ['OPENBLAS_NUM_THREADS'])")


def _run(env: dict[str, str]) -> str:
    return subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()


def test_openblas_is_kept_to_one_thread_before_numpy_loads() -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert _run(env) == "False 1"
    assert _run({**env, "OPENBLAS_NUM_THREADS": "3"}) == "False 3"
