"""``json``: ruff's JSON fields (cell, code, end_location, filename, fix, location, message, name,
noqa_row, url: an absolute URL) plus ``severity``; a JSON array, ``[]`` when clean."""
from __future__ import annotations

import json
import os

from ...diagnostics import Finding
from ... import rules
from . import RenderOptions

NAME = "json"


def finding_dict(f: Finding) -> dict:
    fix = None
    if f.fix is not None:
        fix = {
            "applicability": f.fix.applicability.value,
            "message": f.fix.message,
            "edits": [
                {"content": e.content,
                 "location": {"row": e.start.row, "column": e.start.column},
                 "end_location": {"row": e.end.row, "column": e.end.column}}
                for e in f.fix.edits
            ],
        }
    rule = rules.ALL_RULES.get(f.code)
    return {
        "cell": f.cell,
        "code": f.code,
        "end_location": {"row": f.end.row, "column": f.end.column},
        "filename": os.path.abspath(f.path),
        "fix": fix,
        "location": {"row": f.start.row, "column": f.start.column},
        "message": f.message,
        "name": rule.name if rule else None,
        "noqa_row": f.start.row,
        "severity": f.severity.value,
        "url": rule.url if rule else None,
    }


def render(findings: list[Finding], options: RenderOptions) -> str:
    return json.dumps([finding_dict(f) for f in findings], indent=2) + "\n"
