"""The benchmarks' peer: real MXNet 1.9.1 in its own subprocess (its own numpy<1.24 venv), driven
one request per line so that the benchmark process alternates systems round by round."""
from __future__ import annotations

import json
import os
import subprocess
import sys


class PeerWorker:
    """``python -c script *args``: the script prints one JSON line when ready (``{"ready": version,
    ...}``), then answers each ``{key: n}`` line with ``{"seconds": per-call time}``."""

    def __init__(self, python: str, script: str, args: list[str], what: str, key: str):
        self.key = key
        self.proc = subprocess.Popen([python, "-c", script, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"MXNet worker for {what} failed to start")
        self.ready = json.loads(line)
        self.version = self.ready["ready"]

    def __call__(self, n: int) -> float:
        self.proc.stdin.write(json.dumps({self.key: n}) + "\n")
        self.proc.stdin.flush()
        self.last = json.loads(self.proc.stdout.readline())     # the whole reply (e.g. also "cpu")
        return self.last["seconds"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def mxnet_python(default: str | None = None) -> str | None:
    """``$HYBRIDIZE_MXNET_PYTHON`` (else ``default`` when it exists) if it imports mxnet, else None
    with a warning: the MXNet columns are then left out."""
    py = os.environ.get("HYBRIDIZE_MXNET_PYTHON") or (default if default and os.path.exists(default) else None)
    if not py:
        return None
    try:
        subprocess.run([py, "-c", "import mxnet"], check=True, capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        print(f"warning: {py} cannot import mxnet; MXNet columns left out", file=sys.stderr)
        return None
    return py
