"""Shared helpers for the checker's tests: check a snippet, run the CLI in-process or for real.

Imported by test modules as ``transpile_helpers`` (``conftest.py`` puts this folder on
``sys.path``: with ``--import-mode=importlib`` test folders are not importable otherwise).
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hybridize.transpile.check.cli import check as check_command
from hybridize.transpile.check.checker import check_source

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"
SEED = REPO.parent / "shared" / "seeds" / "003_1b33d701257224a3.txt"

HEADER = "from mxnet import nd\nfrom mxnet.gluon import nn\n\n\n"


def block(body: str, signature: str = "self, F, x", init: str = "", header: str = HEADER) -> str:
    """A module with one HybridBlock whose hybrid_forward body is ``body`` (dedented)."""
    out = [header, "class Net(nn.HybridBlock):\n"]
    if init:
        out.append("    def __init__(self):\n        super().__init__()\n")
        out += [f"        {line}\n" for line in textwrap.dedent(init).strip("\n").splitlines()]
    out.append(f"    def hybrid_forward({signature}):\n")
    out += [f"        {line}\n" if line.strip() else "\n" for line in textwrap.dedent(body).strip("\n").splitlines()]
    return "".join(out)


def findings(code: str, path: str = "model.py"):
    return check_source(code, path)


def codes(code: str) -> list[str]:
    """Codes found, in order."""
    return [f.code for f in findings(code)]


def rows(code: str, code_filter: str | None = None) -> list[tuple[int, str]]:
    return [(f.start.row, f.code) for f in findings(code) if code_filter in (None, f.code)]


@pytest.fixture
def cli():
    """Run ``hybridize-check`` in-process: ``cli(args, cwd=...) -> (exit code, stdout, stderr)``."""
    def run(args, cwd: Path | None = None, env: dict | None = None):
        try:  # click < 8.2 mixes stderr into stdout unless told not to
            runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
        except TypeError:
            runner = CliRunner()
        old = os.getcwd()
        if cwd is not None:
            os.chdir(cwd)
        try:
            result = runner.invoke(check_command, [str(a) for a in args], env=env, prog_name="hybridize-check")
        finally:
            os.chdir(old)
        stderr = result.stderr if hasattr(result, "stderr") else ""
        return result.exit_code, result.stdout, stderr
    return run


def run_real(args, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the installed console script in a subprocess (tracebacks would show up in stderr)."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "hybridize.cli", "check", *map(str, args)], cwd=cwd,
                          env=full_env, capture_output=True, text=True, timeout=120)
