"""Makes ``transpile_helpers`` importable and provides the ``cli`` fixture."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from transpile_helpers import cli  # noqa: E402,F401  (the fixture)
