"""``concise``: one line per finding, ``path:row:col: CODE [*] message`` (ruff's concise)."""
from __future__ import annotations

from ....messages import printable

from ...diagnostics import Finding
from . import RenderOptions
from ._style import Style

NAME = "concise"


def header(f: Finding, style: Style) -> str:
    mark = " [*]" if f.fixable else ""
    cell = f"cell {f.cell}{style.cyan(':')}" if f.cell is not None else ""
    return (f"{style.bold(printable(f.path))}{style.cyan(':')}{cell}{f.start.row}{style.cyan(':')}{f.start.column}"
            f"{style.cyan(':')} {style.code(f.code, f.severity.value)}{mark} {f.message}")


def render(findings: list[Finding], options: RenderOptions) -> str:
    style = Style(options.color)
    return "".join(header(f, style) + "\n" for f in findings)
