"""``rdjson``: reviewdog's Diagnostic Format (one JSON document: source, severity, diagnostics with
ranges, codes with URLs, and suggestions from each fix's edits)."""
from __future__ import annotations

import json

from ...diagnostics import Finding
from ... import rules
from ...rules.base import DOCS_URL
from . import RenderOptions

NAME = "rdjson"


def _range(start, end) -> dict:
    return {"start": {"line": start.row, "column": start.column}, "end": {"line": end.row, "column": end.column}}


def _diagnostic(f: Finding) -> dict:
    rule = rules.ALL_RULES.get(f.code)
    out = {"message": f.message, "location": {"path": f.path, "range": _range(f.start, f.end)},
           "severity": "ERROR" if f.severity.value == "error" else "WARNING",
           "code": {"value": f.code, **({"url": rule.url} if rule is not None and rule.url else {})}}
    if f.fix is not None and f.fix.edits:
        out["suggestions"] = [{"range": _range(e.start, e.end), "text": e.content} for e in f.fix.edits]
    return out


def render(findings: list[Finding], options: RenderOptions) -> str:
    return json.dumps({"source": {"name": "hybridize-check", "url": DOCS_URL},
                       "severity": "WARNING", "diagnostics": [_diagnostic(f) for f in findings]}, indent=2) + "\n"
