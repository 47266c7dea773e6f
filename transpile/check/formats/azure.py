"""``azure``: Azure Pipelines logging commands (``##vso[task.logissue ...]``), as ruff writes them."""
from __future__ import annotations

from ....messages import printable

from ...diagnostics import Finding
from . import RenderOptions

NAME = "azure"


def render(findings: list[Finding], options: RenderOptions) -> str:
    out = []
    for f in findings:
        kind = "error" if f.severity.value == "error" else "warning"
        out.append(f"##vso[task.logissue type={kind};sourcepath={printable(f.path)};linenumber={f.start.row};"
                   f"columnnumber={f.start.column};code={f.code};]{f.message}\n")
    return "".join(out)
