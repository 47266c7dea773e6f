"""``full`` (default on a terminal): the concise header, the source line with carets, advice."""
from __future__ import annotations

from ...diagnostics import Finding
from ... import rules
from . import RenderOptions
from ._style import Style
from .concise import header

NAME = "full"


def _excerpt(f: Finding, lines: list[str], style: Style) -> list[str]:
    if not (1 <= f.start.row <= len(lines)):
        return []
    text = lines[f.start.row - 1].rstrip("\r\n").expandtabs(1)
    number = str(f.start.row)
    pad = " " * len(number)
    start = max(0, f.start.column - 1)
    if f.end.row == f.start.row and f.end.column > f.start.column:
        width = f.end.column - f.start.column
    else:
        width = max(1, len(text) - start)
    bar = style.blue("|")
    carets = style.code("^" * max(1, width), f.severity.value)
    return [
        f"{pad} {bar}",
        f"{style.blue(number)} {bar} {text}",
        f"{pad} {bar} {' ' * start}{carets} {style.code(f.code, f.severity.value)}",
        f"{pad} {bar}",
    ]


def render(findings: list[Finding], options: RenderOptions) -> str:
    style = Style(options.color)
    out: list[str] = []
    for f in findings:
        out.append(header(f, style))
        lines = options.lines_for(f.path)
        excerpt = _excerpt(f, lines, style) if lines and f.cell is None else []
        out.extend(excerpt)
        pad = " " * (len(str(f.start.row)) if excerpt else 2)
        for note in f.context:
            out.append(f"{pad} = {style.bold('note')}: {note}")
        rule = rules.ALL_RULES.get(f.code)
        if f.fix is not None and options.show_fixes:
            out.append(f"{pad} = {style.bold('help')}: {f.fix.message}")
        elif rule is not None:
            out.append(f"{pad} = {style.bold('help')}: {rule.fix_advice}")
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
