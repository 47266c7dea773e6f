"""README's before/after of a converted ``if`` and row loop is the tool's real output."""
from __future__ import annotations

import os
import re
import subprocess
import sys

from support import REPO


def test_readme_shows_what_transpile_prints_for_the_control_flow_exercise() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- transpile-control-flow -->\s*```diff\n(.*?)```", text, re.S)
    assert block, "README.md must hold the converted exercise in a ```diff block after <!-- transpile-control-flow -->"
    shown = block.group(1)
    res = subprocess.run([sys.executable, "-m", "hybridize.cli", "transpile", "--show",
                          "samples/exercises/hybrid_net_exercises.py", "--diff"],
                         cwd=REPO, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert res.returncode == 0, res.stderr
    assert shown in res.stdout, f"README's snippet differs from `hybridize transpile --diff`:\n{res.stdout}"
    assert "F.contrib.foreach" in shown and "F.where" in shown
