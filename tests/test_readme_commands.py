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


def test_ci_lints_the_project_before_the_tests() -> None:
    # ruff, then vulture (dead code: [tool.vulture] of pyproject.toml, whitelist in tools/), then pytest
    ci = [ln.strip() for ln in (REPO / ".ci" / "run").read_text().splitlines()
          if ln.strip() and not ln.strip().startswith("#")]
    tests = ci.index("python -m pytest")
    assert ci.index("ruff check .") < tests and ci.index("vulture") < tests
    pyproject = (REPO / "pyproject.toml").read_text()
    assert "[tool.vulture]" in pyproject and '"vulture>=' in pyproject   # configured, in the test extra
