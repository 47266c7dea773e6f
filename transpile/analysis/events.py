"""What the dataflow tells the rules: :class:`Event` (an operation applied to a value) and
:class:`Site` (which function, in which snippet, reached how), plus usage :class:`Evidence`.

The interpreter never decides what is *wrong*; it reports "the code iterates over this value",
"this value is a branch condition", "this method is called on this value". Rules
(``rules/hy0*.py``) subscribe to event kinds and decide, so each rule lives in one place.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any, Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .values import Value

_SPACES = re.compile(r"\s+")


class EventKind(enum.Enum):
    CALL = "call of a function"                    # name: qualified callee, args
    METHOD_CALL = "method call on a value"         # name: method, value: receiver
    ATTRIBUTE = "attribute read"                   # name: attribute, value: receiver
    AUG_ASSIGN = "augmented assignment to a name"  # value: old value of the name
    SUBSCRIPT_STORE = "item assignment"            # value: the container
    SUBSCRIPT_LOAD = "item read"                   # value: the container
    CONDITION = "truth value used"                 # value: the condition, construct: keyword
    ITERATE = "iteration"                          # value: iterated, construct: how
    API_REF = "reference into an MXNet API module" # name: qualified name
    SELF_ATTR_READ = "read of a self attribute"    # name: attribute, value
    SELF_STORE = "value stored on self"            # value: stored value, construct: how


class Site:
    """A function being analysed: its libcst snippet, display name and call chain.

    Positions are computed lazily (libcst's PositionProvider costs more than the parse), only for
    snippets that actually have something to report.
    """

    def __init__(self, module: cst.Module, line_offset: int, name: str, chain: tuple[str, ...] = ()) -> None:
        self.module = module
        self.line_offset = line_offset
        self.name = name
        self.chain = chain
        self._positions: Optional[Any] = None

    def _resolve(self) -> Any:
        if self._positions is None:
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = wrapper.resolve(PositionProvider)
        return self._positions

    def span(self, node: cst.CSTNode) -> tuple[int, int, int, int]:
        """1-based (row, column, end row, end column exclusive) of ``node`` in the file."""
        rng = self._resolve()[node]
        return (
            rng.start.line + self.line_offset,
            rng.start.column + 1,
            rng.end.line + self.line_offset,
            rng.end.column + 1,
        )

    def row(self, node: cst.CSTNode) -> int:
        return self.span(node)[0]

    def text(self, node: cst.CSTNode, limit: int = 60) -> str:
        """One-line source text of ``node`` for messages, shortened to ``limit`` characters."""
        code = _SPACES.sub(" ", self.module.code_for_node(node)).strip()
        code = re.sub(r"([(\[{]) ", r"\1", code)
        code = re.sub(r" ([)\]}])", r"\1", code)
        if len(code) > limit:
            code = code[: limit - 3] + "..."
        return code


@dataclass
class Event:
    kind: EventKind
    node: cst.CSTNode
    site: Site
    value: Optional[Value] = None
    subject: Optional[cst.CSTNode] = None
    name: str = ""
    construct: str = ""
    args: tuple[tuple[Value, cst.CSTNode], ...] = ()
    call: Optional[cst.Call] = None
    extra: dict = field(default_factory=dict)

    def subject_text(self) -> str:
        node = self.subject if self.subject is not None else self.node
        return self.site.text(node)

    def why(self, value: Optional[Value] = None, subject: Optional[cst.CSTNode] = None) -> str:
        """"`y` is a tensor: it is the result of `self.fc(x)` on line 9" for this event's value."""
        val = value if value is not None else self.value
        text = self.site.text(subject) if subject is not None else self.subject_text()
        if val is None or val.origin is None:
            return f"`{text}` is a tensor"
        return val.origin.explain(text, self.site.row(self.node))


class Evidence:
    """How undecided (MAYBE) values are used, keyed by the value's key.

    *Tensor* evidence: arithmetic, ordering comparison, a tensor method or attribute, a direct
    argument of an ``F`` operator, a multi-dimensional index. *Strong container* evidence: list
    methods, list concatenation. *Weak container* evidence: iteration or unpacking (weak because
    iterating a tensor is itself one of the mistakes this tool reports).
    """

    def __init__(self) -> None:
        self.tensor: dict[Any, tuple[cst.CSTNode, Site]] = {}
        self.strong_container: set = set()
        self.weak_container: set = set()

    def saw_tensor(self, value: Value, node: cst.CSTNode, site: Site) -> None:
        for key in value.keys:
            self.tensor.setdefault(key, (node, site))

    def saw_container(self, value: Value, strong: bool) -> None:
        target = self.strong_container if strong else self.weak_container
        target.update(value.keys)

    def decide(self, key: Any) -> str:
        """``"tensor"``, ``"container"`` or ``"unknown"`` for one key."""
        if key in self.strong_container:
            return "container"
        if key in self.tensor:
            return "tensor"
        if key in self.weak_container:
            return "container"
        return "unknown"

    def snapshot(self) -> tuple:
        return (frozenset(self.tensor), frozenset(self.strong_container), frozenset(self.weak_container))
