"""What a rule is: :class:`Rule` (code, message, rationale, fix advice, examples, check).

A rule never inspects syntax on its own: it subscribes to :class:`~..analysis.events.EventKind` s
emitted by the dataflow and decides from the event's abstract value whether the operation is a
problem. Examples are part of the definition; ``tests/check/test_rule_examples.py`` runs them:
lines of an INVALID example that must be reported end with ``# expect: HYxxx``; a VALID example
must produce no finding at all; ``fix_examples`` pairs must round-trip through ``--fix``, and
``tests/convert/test_both_ways.py`` runs every fix example *both ways* (the original imperatively,
the fixed code hybridized: equal outputs). An example is a plain string of module text; one that
needs particular input shapes is an :class:`Example` (``example(..., inputs={"x": (4, 3)})``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Optional, Sequence, Union

import ast

from ..analysis.events import Event, EventKind
from ..diagnostics import Fix, Severity


#: Where the rule reference is meant to be published (the ``url`` of ruff-style JSON, SARIF's ``helpUri``);
#: the package metadata names no URL until the project has a public home.
DOCS_URL = "https://github.com/hybridize/hybridize/blob/main/docs/checker-rules.md"


@dataclass
class Report:
    """A rule's verdict on one event: where, what, and optionally how to fix it."""

    node: ast.AST
    message: str
    #: ``fix(with_edits)``: the Fix (applicability and message are cheap; edits need libcst and
    #: are only computed when wanted).
    fix: Optional[Callable[[bool], Optional[Fix]]] = None
    #: this report's severity when it differs from the rule's (HY013: shapes that *may* differ
    #: are a warning, shapes that differ an error)
    severity: Optional[Severity] = None


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
    #: The command whose analysis reports the rule: the checker's dataflow (``hybridize-check``,
    #: and ``hybridize transpile`` through it), or only ``hybridize transpile`` (HY012, the API
    #: surface of ``hybridize.runtime``, which says nothing about the code on MXNet).
    reported_by: str = "hybridize-check"
    #: The rule's conversion is right for np-mode code too (``npx.set_np()``: it emits no legacy
    #: ``F.X`` operator, or emits ``F.np``/``F.npx`` there). Otherwise np-mode findings of the rule
    #: carry no fix: a legacy operator applied to np-mode tensors is not what the code computed.
    np_fixable: bool = False
    #: What ``--fix`` does with the rule's np-mode findings (the rule reference prints it), or why
    #: they keep no fix: MXNet 1.9.1's ``F.np``/``F.npx`` forms, verified in
    #: ``tests/numpy/test_np_conversions.py``.
    np_advice: str = ""

    @property
    def doc_path(self) -> str:
        """Where the rule is documented, relative to the repository root (links inside docs/)."""
        return f"docs/checker-rules.md#{self.code.lower()}"

    @property
    def url(self) -> str:
        """The rule's documentation as an absolute URL (ruff's JSON ``url``, SARIF ``helpUri``)."""
        return f"{DOCS_URL}#{self.code.lower()}"


#: One ``hybrid_forward`` input: a shape (one float32 tensor) or a list of shapes (a list of tensors).
InputSpec = Union[tuple[int, ...], list[tuple[int, ...]]]
#: Inputs of an example that declares none: every input is one float32 tensor of this shape (small,
#: and every axis a different length, so a conversion that confuses axes cannot pass by accident).
DEFAULT_INPUT_SHAPE: tuple[int, ...] = (2, 3, 4)


class Example(str):
    """Module text of an example, plus the shapes the both-ways tests feed its ``hybrid_forward``.

    A ``str`` (everything that reads examples as text keeps working); ``inputs`` maps input names
    to shapes in ``hybrid_forward``'s order, ``None`` for the default (:data:`DEFAULT_INPUT_SHAPE`
    for every input after ``F``).
    """

    inputs: Optional[tuple[tuple[str, InputSpec], ...]]

    def __new__(cls, text: str, inputs: Optional[Mapping[str, InputSpec]] = None) -> "Example":
        self = super().__new__(cls, text)
        self.inputs = None if inputs is None else tuple(
            (name, list(map(tuple, spec)) if isinstance(spec, list) else tuple(spec)) for name, spec in inputs.items())
        return self


def input_specs(text: str, names: Sequence[str]) -> list[tuple[str, InputSpec]]:
    """The inputs the both-ways tests feed ``hybrid_forward(F, *names)`` of example ``text``."""
    declared = dict(getattr(text, "inputs", None) or ())
    unknown = sorted(set(declared) - set(names))
    if unknown:
        raise ValueError(f"example declares inputs {unknown} that hybrid_forward does not take ({list(names)})")
    return [(name, declared.get(name, DEFAULT_INPUT_SHAPE)) for name in names]


def short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


_PRELUDE = "from mxnet import nd\nfrom mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
#: An np-mode module (d2l 2.x): MXNet's NumPy interface is on, so the rules use np-mode semantics.
_NP_PRELUDE = "from mxnet import np, npx\nfrom mxnet.gluon import nn\nnpx.set_np()\n\n\nclass Net(nn.HybridBlock):\n"


def example(body: str, init: str = "", extra: str = "", signature: str = "self, F, x",
            inputs: Optional[Mapping[str, InputSpec]] = None) -> str:
    """A complete module whose ``hybrid_forward`` body is ``body`` (examples stay short to write
    but are whole files, exactly what the checker sees). ``inputs``: shapes for the both-ways
    tests (see :class:`Example`), e.g. ``{"x": (4, 3)}`` or ``{"x": (2, 3), "states": [(2, 3)]}``."""
    out = [_PRELUDE]
    _body(out, body, init, extra, signature)
    text = "".join(out)
    return Example(text, inputs) if inputs is not None else text


def np_example(body: str, init: str = "", extra: str = "", signature: str = "self, F, x") -> str:
    """Like :func:`example`, in an np-mode module (``from mxnet import np, npx; npx.set_np()``),
    whose blocks MXNet traces into np-mode Symbols."""
    out = [_NP_PRELUDE]
    _body(out, body, init, extra, signature)
    return "".join(out)


def _body(out: list[str], body: str, init: str, extra: str, signature: str) -> None:
    if init:
        out.append("    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n")
        out.extend(f"        {line}\n" for line in init.strip("\n").splitlines())
        out.append("\n")
    out.append(f"    def hybrid_forward({signature}):\n")
    out.extend(f"        {line}\n" if line else "\n" for line in body.strip("\n").splitlines())
    if extra:
        out.append("\n")
        out.extend(f"    {line}\n" if line else "\n" for line in extra.strip("\n").splitlines())
