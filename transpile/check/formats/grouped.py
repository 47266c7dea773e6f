"""``grouped``: findings under one heading per file (``path:``), ``  row:col CODE [*] message``."""
from __future__ import annotations

from ....messages import printable

from itertools import groupby

from ...diagnostics import Finding
from . import RenderOptions
from ._style import Style

NAME = "grouped"


def render(findings: list[Finding], options: RenderOptions) -> str:
    style = Style(options.color)
    out = []
    for path, group in groupby(findings, key=lambda f: f.path):
        rows = list(group)
        out.append(style.bold(printable(path)) + style.cyan(":") + "\n")
        width = max(len(f"{f.start.row}:{f.start.column}") for f in rows)
        for f in rows:
            cell = f"cell {f.cell}:" if f.cell is not None else ""
            where = f"{cell}{f.start.row}:{f.start.column}"
            mark = " [*]" if f.fixable else ""
            out.append(f"  {where:<{width}} {style.code(f.code, f.severity.value)}{mark} {f.message}\n")
        out.append("\n")
    return "".join(out)
