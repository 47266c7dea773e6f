"""README's two set-up commands are exactly what CI (`.ci/run`) runs."""
from __future__ import annotations

import re

from support import REPO


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- commands -->\s*```(?:bash|sh)?\n(.*?)```", text, re.S)
    assert block, "README.md must hold its two commands in a ```bash block after <!-- commands -->"
    return [ln.strip() for ln in block.group(1).splitlines() if ln.strip() and not ln.strip().startswith("#")]


def test_readme_has_exactly_two_commands() -> None:
    assert len(_readme_commands()) == 2


def test_ci_runs_readme_commands_verbatim() -> None:
    ci = [ln.strip() for ln in (REPO / ".ci" / "run").read_text().splitlines()
          if ln.strip() and not ln.strip().startswith("#")]
    for cmd in _readme_commands():
        assert cmd in ci, f"`{cmd}` is in README.md but .ci/run does not run it"
