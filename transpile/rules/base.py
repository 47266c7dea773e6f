"""What a rule is: :class:`Rule` (code, message, rationale, fix advice, examples, check).

A rule never inspects syntax on its own: it subscribes to :class:`~..analysis.events.EventKind` s
emitted by the dataflow and decides from the event's abstract value whether the operation is a
problem. Examples are part of the definition; ``tests/check/test_rule_examples.py`` runs them:
lines of an INVALID example that must be reported end with ``# expect: HYxxx``; a VALID example
must produce no finding at all; ``fix_examples`` pairs must round-trip through ``--fix``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

import ast

from ..analysis.events import Event, EventKind
from ..diagnostics import Fix, Severity


@dataclass
class Report:
    """A rule's verdict on one event: where, what, and optionally how to fix it."""

    node: ast.AST
    message: str
    #: ``fix(with_edits)``: the Fix (applicability and message are cheap; edits need libcst and
    #: are only computed when wanted).
    fix: Optional[Callable[[bool], Optional[Fix]]] = None


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    rationale: str
    fix_advice: str
    events: tuple[EventKind, ...]
    check: Optional[Callable[[Event], Iterable[Report]]]
    valid: tuple[str, ...] = ()
    invalid: tuple[str, ...] = ()
    fix_examples: tuple[tuple[str, str], ...] = ()
    fixable: bool = False
    unsafe_fix_examples: tuple[tuple[str, str], ...] = field(default=())

    @property
    def url(self) -> str:
        """Where the rule is documented (relative to the repository root)."""
        return f"docs/checker-rules.md#{self.code.lower()}"


def short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


_PRELUDE = "from mxnet import nd\nfrom mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"


def example(body: str, init: str = "", extra: str = "", signature: str = "self, F, x") -> str:
    """A complete module whose ``hybrid_forward`` body is ``body`` (examples stay short to write
    but are whole files, exactly what the checker sees)."""
    out = [_PRELUDE]
    if init:
        out.append("    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n")
        out.extend(f"        {line}\n" for line in init.strip("\n").splitlines())
        out.append("\n")
    out.append(f"    def hybrid_forward({signature}):\n")
    out.extend(f"        {line}\n" if line else "\n" for line in body.strip("\n").splitlines())
    if extra:
        out.append("\n")
        out.extend(f"    {line}\n" if line else "\n" for line in extra.strip("\n").splitlines())
    return "".join(out)
