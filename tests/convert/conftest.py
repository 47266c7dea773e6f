"""Makes ``both_ways`` (the harness) importable by the conversion tests."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
