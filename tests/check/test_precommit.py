"""pre-commit integration: the repository's ``.pre-commit-hooks.yaml`` works with ``try-repo``.

Skipped only when pre-commit is not installed. To stay fast and offline the hook environment
reuses this interpreter's installed dependencies (virtualenv with system site-packages, no pip
build isolation); pre-commit still builds and installs this repository into it from scratch.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from transpile_helpers import REPO, block

pytestmark = pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed")


def _pre_commit(args, cwd, home) -> subprocess.CompletedProcess:
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), VIRTUALENV_SYSTEM_SITE_PACKAGES="true",
               PIP_NO_BUILD_ISOLATION="0", PIP_DISABLE_PIP_VERSION_CHECK="1", NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_manifest_is_valid(tmp_path):
    proc = _pre_commit(["validate-manifest", str(REPO / ".pre-commit-hooks.yaml")], REPO, tmp_path / "home")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_try_repo_reports_the_bad_file_and_the_fix_hook_fixes_it(tmp_path):
    work = tmp_path / "project"
    work.mkdir()
    bad = block("y = F.relu(x)\ny += 1\nreturn y")
    (work / "bad.py").write_text(bad)
    (work / "good.py").write_text(block("return F.relu(x)"))
    (work / "notes.txt").write_text("y += 1 in hybrid_forward\n")
    for cmd in (["init", "-q"], ["config", "user.email", "t@example.com"], ["config", "user.name", "t"],
                ["add", "."]):
        subprocess.run(["git", *cmd], cwd=work, check=True, capture_output=True)
    proc = _pre_commit(["try-repo", str(REPO), "--all-files"], work, tmp_path / "home")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "hybridize-check" in out and "Failed" in out
    assert "bad.py:8:9: HY002 [*] in-place `+=` on tensor `y`" in out
    assert "good.py" not in out and "notes.txt" not in out
    # the -fix hook rewrote the file; the plain hook had reported it before
    assert (work / "bad.py").read_text() == bad.replace("y += 1", "y = y + 1")
    assert "files were modified by this hook" in out
