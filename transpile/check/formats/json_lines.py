"""``json-lines``: ruff's JSON fields, one finding per line (no enclosing array)."""
from __future__ import annotations

import json

from ...diagnostics import Finding
from . import RenderOptions
from .json_format import finding_dict

NAME = "json-lines"


def render(findings: list[Finding], options: RenderOptions) -> str:
    return "".join(json.dumps(finding_dict(f)) + "\n" for f in findings)
