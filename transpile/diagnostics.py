"""The value a check produces: :class:`Finding` (plus :class:`Fix` and :class:`Edit`).

Findings are plain, immutable, picklable data so that worker processes can send them back and
every output format (``formats/``) can render them without knowing anything about the analysis.
Locations follow ruff's conventions: 1-based rows, 1-based character columns, and an end
location that is exclusive (the column just after the offending expression).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional


class Severity(str, enum.Enum):
    """How bad a finding is. Both make the exit code 1; formats map them to SARIF levels."""

    ERROR = "error"
    WARNING = "warning"


class Applicability(str, enum.Enum):
    """Whether ``--fix`` may apply a fix on its own (ruff's ``safe``/``unsafe`` distinction)."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based (row, column) position in a file."""

    row: int
    column: int


@dataclass(frozen=True)
class Edit:
    """Replace the text between ``start`` and ``end`` (exclusive) with ``content``."""

    start: Location
    end: Location
    content: str


@dataclass(frozen=True)
class Fix:
    """A set of non-overlapping edits that together repair one finding."""

    message: str
    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.SAFE
    #: The fix may change what the code *computes*, not only what a caller or a debugger could see:
    #: imperatively another live reference (a name, a view, a container, ``self``) observed the
    #: in-place update the fix turns into a rebinding, or a view the fix turns into a copy is
    #: written through. Always unsafe. ``--unsafe-fixes`` applies it when the user asks for it;
    #: ``hybridize transpile`` never does (``fix_source(exact=True)``): its output must compute
    #: what the original computes imperatively.
    changes_results: bool = False


@dataclass(frozen=True)
class Finding:
    """One reported problem.

    ``path`` is the file as the user named it (relative paths stay relative), so outputs read
    naturally and are deterministic; ``sort_key`` orders findings by file, line, column.
    ``context`` holds extra lines for humans (for example the call chain through which a helper
    method was reached from ``hybrid_forward``).
    """

    path: str
    code: str
    message: str
    severity: Severity
    start: Location
    end: Location
    fix: Optional[Fix] = None
    context: tuple[str, ...] = field(default=())
    #: In a notebook, the 1-based position of the cell; rows are then counted within the cell.
    cell: Optional[int] = None

    @property
    def where(self) -> str:
        """``path:row:col`` (``path:cell N:row:col`` in a notebook), as every format prints it."""
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.start.row}:{self.start.column}"

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.start.row, self.start.column, self.code, self.message)

    @property
    def fixable(self) -> bool:
        return self.fix is not None and self.fix.applicability is Applicability.SAFE


def sorted_findings(findings: list[Finding]) -> list[Finding]:
    """Deterministic order used everywhere: file, line, column, code."""
    return sorted(findings, key=lambda f: f.sort_key)
