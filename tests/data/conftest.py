"""tests/data: its helper module (recorded.py) importable by the tests beside it."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
