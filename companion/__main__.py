"""`python -m companion` runs the command line."""
from __future__ import annotations

import sys

from companion.cli import main

sys.exit(main())
