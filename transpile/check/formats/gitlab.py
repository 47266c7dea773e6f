"""``gitlab``: GitLab Code Quality report (a JSON array of issues with a stable ``fingerprint``).

The fingerprint hashes the path, code and message (not the line), so a finding keeps its identity
when unrelated lines move, which is what GitLab uses to tell new findings from resolved ones."""
from __future__ import annotations

import hashlib
import json
import os

from ...diagnostics import Finding
from . import RenderOptions

NAME = "gitlab"


def _fingerprint(f: Finding, seen: dict[str, int]) -> str:
    base = f"{f.path}\0{f.code}\0{f.message}"
    rank = seen.get(base, 0)
    seen[base] = rank + 1
    return hashlib.sha256(f"{base}\0{rank}".encode("utf-8")).hexdigest()[:32]


def render(findings: list[Finding], options: RenderOptions) -> str:
    seen: dict[str, int] = {}
    root = os.path.abspath(options.root or ".")
    issues = []
    for f in findings:
        path = os.path.relpath(os.path.abspath(f.path), root).replace(os.sep, "/")
        issues.append({
            "check_name": f.code,
            "description": f"{f.code} {f.message}",
            "fingerprint": _fingerprint(f, seen),
            "severity": "major" if f.severity.value == "error" else "minor",
            "location": {"path": path, "lines": {"begin": f.start.row, "end": f.end.row}},
        })
    return json.dumps(issues, indent=2) + "\n"
