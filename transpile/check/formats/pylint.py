"""``pylint``: ``path:row: [CODE] message``, the layout pylint's parseable output and ruff share."""
from __future__ import annotations

from ....messages import printable

from ...diagnostics import Finding
from . import RenderOptions

NAME = "pylint"


def render(findings: list[Finding], options: RenderOptions) -> str:
    return "".join(f"{printable(f.path)}:{f.start.row}: [{f.code}] {f.message}\n" for f in findings)
