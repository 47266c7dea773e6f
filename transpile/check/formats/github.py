"""``github``: GitHub Actions workflow commands (``::error file=..,line=..::message``)."""
from __future__ import annotations

from ...diagnostics import Finding
from . import RenderOptions

NAME = "github"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(findings: list[Finding], options: RenderOptions) -> str:
    out = []
    for f in findings:
        level = "error" if f.severity.value == "error" else "warning"
        props = ",".join([
            f"title={_escape_property(f'hybridize-check ({f.code})')}",
            f"file={_escape_property(f.path)}",
            f"line={f.start.row}",
            f"col={f.start.column}",
            f"endLine={f.end.row}",
            f"endColumn={f.end.column}",
        ])
        out.append(f"::{level} {props}::{_escape_data(f'{f.where}: {f.code} {f.message}')}\n")
    return "".join(out)
