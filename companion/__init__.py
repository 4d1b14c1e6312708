"""The game: the pure rules engine, game records, the advisor, the table controller and the CLI."""
import os

# The reader's matrix products (the Event die's face matching) are small: OpenBLAS's
# extra threads gain nothing and spin waiting for work, taking CPU from the camera, the
# web server and the LEDs (rendered tables, calibrated: about 44 ms of CPU a frame with
# two threads, 24 with one). It must be set before numpy loads; a value set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
