"""What the dataflow tells the rules: :class:`Event` (an operation applied to a value) and
:class:`Site` (which function, reached how, with the file's lines), plus usage :class:`Evidence`.

The interpreter never decides what is *wrong*; it reports "the code iterates over this value",
"this value is a branch condition", "this method is called on this value". Rules
(``rules/hy0*.py``) subscribe to event kinds and decide, so each rule lives in one place.

Nodes are CPython :mod:`ast` nodes of the checked file; positions come straight from them
(``lineno``/``col_offset`` are UTF-8 byte columns, converted here to 1-based character columns).
"""
from __future__ import annotations

import ast
import enum
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from .values import Kind, Value

#: How a message names a value that holds tensors, by kind (rules on certain tensors see TENSOR).
_WHAT = {Kind.SEQ: "a container of tensors", Kind.MAYBE: "a tensor or an object holding tensors"}

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
    PARAMETER_DATA = "NDArray of a Parameter read"  # name: attribute, construct: method (data)
    BINARY_OP = "arithmetic or comparison of two tensors"  # construct: ast operator, args: operands
    STATE_INPUT = "value passed as an input an operator updates in place"  # name: F operator, construct: input


class Site:
    """A function being analysed: the file's lines, display name and the call chain to it."""

    def __init__(self, lines: list[str], name: str, chain: tuple[str, ...] = (), function: Any = None,
                 np_mode: bool = False) -> None:
        self.lines = lines
        self.name = name
        self.chain = chain
        self.function = function  # index.FunctionSpan of the analysed function (for fixes)
        #: the module uses MXNet's NumPy interface (``index.ModuleIndex.np_mode``): rules judge the
        #: code against np-mode Symbols
        self.np_mode = np_mode

    def _column(self, row: int, byte_col: int) -> int:
        line = self.lines[row - 1] if 0 < row <= len(self.lines) else ""
        if line.isascii():
            return byte_col + 1
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="replace")) + 1

    def span(self, node: ast.AST) -> tuple[int, int, int, int]:
        """1-based (row, column, end row, end column exclusive) of ``node`` in the file."""
        row = node.lineno  # type: ignore[attr-defined]
        end_row = getattr(node, "end_lineno", None) or row
        end_col = getattr(node, "end_col_offset", None)
        start = self._column(row, node.col_offset)  # type: ignore[attr-defined]
        end = self._column(end_row, end_col) if end_col is not None else start
        return row, start, end_row, end

    def row(self, node: ast.AST) -> int:
        return node.lineno  # type: ignore[attr-defined]

    def source(self, node: ast.AST) -> str:
        """The exact source text of ``node``."""
        row, col, end_row, end_col = self.span(node)
        if row == end_row:
            return self.lines[row - 1][col - 1:end_col - 1]
        parts = [self.lines[row - 1][col - 1:]]
        parts.extend(self.lines[row:end_row - 1])
        parts.append(self.lines[end_row - 1][:end_col - 1])
        return "".join(parts)

    def text(self, node: ast.AST, limit: int = 60) -> str:
        """One-line source text of ``node`` for messages, shortened to ``limit`` characters."""
        try:
            code = self.source(node)
        except (IndexError, AttributeError):
            code = ast.unparse(node)
        code = code.replace("\\\r\n", " ").replace("\\\n", " ")
        code = _SPACES.sub(" ", code).strip()
        code = re.sub(r"([(\[{]) ", r"\1", code)
        code = re.sub(r" ([)\]}])", r"\1", code)
        if len(code) > limit:
            code = code[: limit - 3] + "..."
        return code


@dataclass
class Event:
    kind: EventKind
    node: ast.AST
    site: Site
    value: Optional[Value] = None
    subject: Optional[ast.AST] = None
    name: str = ""
    construct: str = ""
    args: tuple[tuple[Value, ast.AST], ...] = ()
    call: Optional[ast.Call] = None
    extra: dict = field(default_factory=dict)
    #: the interpreter's abstract values of the expressions it evaluated (``id(node) -> (node,
    #: value, site)``), so a fix can ask what an expression near the event is (:meth:`value_of`)
    values: Optional[dict] = field(default=None, repr=False, compare=False)

    def value_of(self, node: ast.AST) -> Optional[Value]:
        """The abstract value of ``node`` (an expression evaluated on the symbolic path), if known."""
        hit = self.values.get(id(node)) if self.values is not None else None
        return hit[1] if hit is not None and hit[0] is node else None

    def subject_text(self) -> str:
        node = self.subject if self.subject is not None else self.node
        return self.site.text(node)

    def why(self, value: Optional[Value] = None, subject: Optional[ast.AST] = None) -> str:
        """"`y` is a tensor: it is the result of `self.fc(x)` on line 9" for this event's value."""
        val = value if value is not None else self.value
        text = self.site.text(subject) if subject is not None else self.subject_text()
        what = "a tensor"
        if val is not None and not (val.kind is Kind.MAYBE and val.origin is not None
                                    and val.origin.category.name == "INPUT"):  # inputs: tensors
            what = _WHAT.get(val.kind, what)
        if val is None or val.origin is None:
            return f"`{text}` is {what}"
        return val.origin.explain(text, self.site.row(self.node), what)


class Evidence:
    """How undecided (MAYBE) values are used, keyed by the value's key.

    *Tensor* evidence: arithmetic, ordering comparison, a tensor method or attribute, a direct
    argument of an ``F`` operator, a multi-dimensional index. *Strong container* evidence: list
    methods, list concatenation. *Weak container* evidence: iteration or unpacking (weak because
    iterating a tensor is itself one of the mistakes this tool reports).

    ``inputs``: the inputs of ``hybrid_forward`` itself, which MXNet documents as tensors ("x: the
    first input tensor", "*args: additional input tensors"); one is decided a tensor unless the
    code gives evidence that it is something else: strong container evidence, or a *hedge*: the
    code allows for, or walks, a list or tuple (``hedged``: ``v is None``, ``isinstance(v, ..)``,
    ``type(v)``, ``len(v)``, ``a, b = v``, ``*v``, ``v[i] = ..``, ``v = v[0]``, ``v[-1]`` (the last
    feature map or layer), ``zip(self.blocks, v)``; ``positions``: ``v[0]`` *and* ``v[1]``; and
    ``computed_index``: ``v[i + 1]`` on an input that is never iterated). A hedge on an element
    (``f[-1] for f in v``) hedges ``v``. A hedged input (and one with a ``None`` default or a
    list annotation, never in ``inputs``) is decided by its uses as any other undecided value.
    Iterating an input or reading one literal row (``x[0]``) is no such evidence: on a tensor it
    is the mistake HY005/HY010 report.
    """

    def __init__(self) -> None:
        self.tensor: dict[Any, tuple[ast.AST, Site]] = {}
        self.strong_container: set = set()
        self.weak_container: set = set()
        self.inputs: set = set()
        self.hedged: set = set()
        self.positions: dict[Any, set] = {}
        self.computed_index: set = set()

    def saw_tensor(self, value: Value, node: ast.AST, site: Site) -> None:
        for key in value.keys:
            self.tensor.setdefault(key, (node, site))

    def saw_container(self, value: Value, strong: bool) -> None:
        target = self.strong_container if strong else self.weak_container
        target.update(value.keys)

    def saw_hedge(self, value: Value) -> None:
        for key in value.keys:
            while isinstance(key, tuple) and len(key) >= 2 and key[1] in ("item", "unpack"):
                self.hedged.add(key)
                key = key[0]  # an element's hedge is its container's
            self.hedged.add(key)

    def saw_index(self, value: Value, position: Any) -> None:
        """``v[0]`` (``position`` the literal int) or ``v[i]`` (``position`` ``None``)."""
        for key in value.keys:
            if position is None:
                self.computed_index.add(key)
            else:
                self.positions.setdefault(key, set()).add(position)

    def _hedged(self, key: Any) -> bool:
        return key in self.hedged or len(self.positions.get(key, ())) >= 2 or (
            key in self.computed_index and key not in self.weak_container)

    def decide(self, key: Any) -> str:
        """``"tensor"``, ``"container"`` or ``"unknown"`` for one key."""
        if key in self.strong_container:
            return "container"
        if key in self.tensor:
            return "tensor"
        if key in self.inputs and not self._hedged(key):
            return "tensor"  # an input of hybrid_forward: a tensor by MXNet's contract
        if key in self.weak_container:
            return "container"
        return "unknown"

    def by_contract(self, key: Any) -> bool:
        """Is ``key`` decided a tensor only because it is an input (no use said so)?"""
        return key not in self.tensor and key not in self.strong_container and key in self.inputs \
            and not self._hedged(key)

    def merge(self, other: "Evidence") -> None:
        """Keep what an earlier pass saw (evidence only grows)."""
        self.tensor.update(other.tensor)
        self.strong_container |= other.strong_container
        self.weak_container |= other.weak_container
        self.inputs |= other.inputs
        self.hedged |= other.hedged
        for key, seen in other.positions.items():
            self.positions.setdefault(key, set()).update(seen)
        self.computed_index |= other.computed_index

    def snapshot(self) -> tuple:
        return (frozenset(self.tensor), frozenset(self.strong_container), frozenset(self.weak_container),
                frozenset(self.hedged), frozenset((k, frozenset(v)) for k, v in self.positions.items()),
                frozenset(self.computed_index))
