"""Makes this folder's case and model tables (``np_cases``, ``np_models``) importable."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
