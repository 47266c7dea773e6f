"""The abstract values of the tensor dataflow, and why a value is a tensor (:class:`Origin`).

Lattice, from "certainly not a tensor" up:

``STATIC``  an ordinary Python value: ``self.*`` configuration, literals, ``None``, shapes.
``FNS``     the ``F`` namespace or something reached from it (``F.relu``, ``F.npx``): calling
            it builds a tensor.
``FUNC``    a function or lambda defined inside the analysed code (called -> analysed).
``SEQ``     a container of tensors: a list/tuple/generator of tensors, ``*args``, or a
            multi-output result (``F.split(x, num_outputs=2)``); indexing/iterating is fine.
``TENSOR``  one NDArray/Symbol.
``MAYBE``   a tensor *or* a container of tensors, undecided: ``hybrid_forward`` inputs and
            results of child blocks (``self.cell(x, states)`` may return a tuple). A MAYBE is
            decided by how the code itself uses it (``events.Evidence``), never by its name.

Each tensor-ish value carries an :class:`Origin` so messages can say *why* it is a tensor.
"""
from __future__ import annotations

import enum
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Optional


class Kind(enum.Enum):
    STATIC = "static"
    FNS = "F"
    FUNC = "function"
    SEQ = "sequence of tensors"
    TENSOR = "tensor"
    MAYBE = "tensor or sequence of tensors"


class Category(enum.Enum):
    """What produced a value; turned into the words of a message by :meth:`Origin.explain`."""

    INPUT = "an input of"
    F_OP = "the result of an `F` operator"
    BLOCK = "the result of calling"
    HELPER = "the result of"
    DERIVED = "computed from a tensor"
    ELEMENT = "an element of"
    IMPERATIVE = "an NDArray made by the imperative API"
    INIT_NDARRAY = "an NDArray created in `__init__`"
    PARAMETER_DATA = "the NDArray of a Parameter"
    LAYER_PARAMETER_DATA = "the NDArray of a Parameter of a child layer"


@dataclass(frozen=True)
class Origin:
    """Where a tensor value came from: the producing expression (text and row, computed lazily
    from ``node`` in ``site`` because positions are only needed when something is reported).

    ``base`` is the origin of the tensor operand a derived value was computed from, so a message
    can follow ``c = x.sum() > 0`` back to ``x``. ``evidence`` is the (node, site) where an
    undecided input was seen being used as a tensor. ``row_of_base``: the value is a row of
    ``base`` taken by iteration or unpacking (``for r in t``, ``zip(t, u)``, ``a, b = t``); MXNet's
    ``NDArray.__iter__`` yields ``t[i]``, a view, so in-place writes through either are seen by the
    other (alias checks follow it like ``t[0]``).
    """

    category: Category
    node: Any = field(default=None, compare=False)
    site: Any = field(default=None, compare=False)
    node_id: int = 0
    function: str = ""
    base: Optional["Origin"] = field(default=None, compare=False)
    evidence: Any = field(default=None, compare=False)
    fixed_text: str = ""
    fixed_row: int = 0
    row_of_base: bool = field(default=False, compare=False)

    @property
    def text(self) -> str:
        if self.fixed_text or self.node is None:
            return self.fixed_text
        return self.site.text(self.node, 50)

    @property
    def row(self) -> int:
        if self.fixed_row or self.node is None:
            return self.fixed_row
        return self.site.row(self.node)

    def _evidence_text(self) -> str:
        if not self.evidence:
            return ""
        node, site = self.evidence
        return f"(used as a tensor in `{site.text(node, 40)}` on line {site.row(node)})"

    def explain(self, subject: str, row: int = 0, what: str = "a tensor") -> str:
        """Finish the sentence "`subject` is a tensor: it is ...".

        >>> Origin(Category.BLOCK, fixed_text="self.fc(x)", fixed_row=9).explain("y")
        '`y` is a tensor: it is the result of `self.fc(x)` on line 9'
        """
        return f"`{subject}` is {what}: it is {self.phrase(subject, evidence_row=row)}"

    def phrase(self, subject: str = "", evidence_row: int = -1) -> str:
        """Describe the origin; ``evidence_row`` -1 omits usage evidence (nested phrases), and an
        evidence on the reported row itself is omitted as redundant."""
        same = subject == self.text
        cat = self.category
        if cat is Category.INPUT:
            where = f"`{self.function}`" if self.function else "`hybrid_forward`"
            text = f"an input of {where}"
            if not same:
                text = f"`{self.text}`, {text}"
            if self.evidence and evidence_row >= 0:
                node, site = self.evidence
                if site.row(node) != evidence_row:
                    text += " " + self._evidence_text()
            return text
        if cat is Category.INIT_NDARRAY:
            return f"an NDArray created in `__init__` by `{self.text}` on line {self.row}"
        if cat is Category.LAYER_PARAMETER_DATA:
            return f"the NDArray of a Parameter of the layer created in `__init__` by `{self.text}` on line {self.row}"
        if cat is Category.PARAMETER_DATA:
            return f"the NDArray of the Parameter declared in `__init__` by `{self.text}` on line {self.row}"
        if same:
            if cat is Category.DERIVED and self.base is not None:
                root = self.base
                while root.category is Category.DERIVED and root.base is not None:
                    root = root.base
                return f"computed on line {self.row} from {root.phrase()}"
            generic = {
                Category.F_OP: f"the result of an `F` operator (line {self.row})",
                Category.BLOCK: f"the result of a child-block call (line {self.row})",
                Category.HELPER: f"the result of a helper called with tensors (line {self.row})",
                Category.ELEMENT: f"an output of a multi-output result (line {self.row})",
                Category.IMPERATIVE: f"an NDArray made by the imperative API (line {self.row})",
            }
            return generic.get(cat, f"computed from a tensor on line {self.row}")
        if cat is Category.ELEMENT:
            return f"an element of `{self.text}` on line {self.row}"
        if cat is Category.DERIVED and self.base is not None and self.base.category is Category.INPUT:
            return f"the result of `{self.text}` on line {self.row}, computed from {self.base.phrase()}"
        return f"the result of `{self.text}` on line {self.row}"


@dataclass(frozen=True)
class Value:
    """One abstract value.

    ``keys`` identify undecided (MAYBE) values for evidence; ``elements`` is set for containers
    whose items are known one by one (``return out, [out]``); ``names`` are the ``F``-paths an
    ``FNS`` value may stand for (``{"F.npx.activation", "F.Activation"}``); ``qual`` is the
    qualified module path of a module-level object (``"mxnet.ndarray.array"``).
    """

    kind: Kind
    origin: Optional[Origin] = None
    keys: frozenset = frozenset()
    elements: Optional[tuple["Value", ...]] = None
    item: Optional["Value"] = None
    names: frozenset = frozenset()
    qual: str = ""
    func: Any = field(default=None, compare=False, hash=False)
    imperative_only: bool = False
    #: for a static value computed from tensor metadata (``x.shape[0]``): what it is
    #: (:class:`~.shapes.Meta`, compared by identity)
    meta: Any = None
    #: for a tensor: what is known about its shape (:class:`~.broadcast.Dims`, HY013); not part
    #: of equality (a control-flow join keeps it only when both paths agree)
    dims: Any = field(default=None, compare=False, hash=False)
    #: The tensors a value joined from several control-flow paths may be (``h = x`` then
    #: ``if c: h = F.tanh(h)``: ``h`` may still be ``x``'s very array). Alias checks look through
    #: them; they take no part in equality.
    alternatives: tuple = field(default=(), compare=False, hash=False)

    def candidates(self) -> tuple["Value", ...]:
        """This value and every value it may be after a join."""
        return (self,) + self.alternatives

    # -- predicates used by rules -------------------------------------------------------------
    @property
    def is_tensor(self) -> bool:
        """Certainly one tensor (rules that would be wrong on a list fire only on these)."""
        return self.kind is Kind.TENSOR

    @property
    def holds_tensor(self) -> bool:
        """A tensor, or possibly a container of tensors (printing or storing it is still wrong)."""
        return self.kind in (Kind.TENSOR, Kind.MAYBE, Kind.SEQ)

    def with_origin(self, origin: Origin) -> "Value":
        return replace(self, origin=origin)


STATIC = Value(Kind.STATIC)


def replace(obj: Any, /, **changes: Any) -> Any:
    """``dataclasses.replace`` for :class:`Value` and :class:`Origin`, about five times faster
    (the analysis makes thousands of copies per file: joins, shape facts, element origins).

    Both are frozen dataclasses without ``__post_init__``, ``InitVar`` or ``init=False`` fields, so
    their ``__init__`` only stores each field: a copy of the instance dict with the changes
    applied is the object it would build. Anything else goes to ``dataclasses.replace``.
    """
    cls = type(obj)
    if cls is not Value and cls is not Origin:
        return dataclasses.replace(obj, **changes)
    if not changes.keys() <= cls.__dataclass_fields__.keys():
        return dataclasses.replace(obj, **changes)  # raises its TypeError for the unknown name
    new = object.__new__(cls)
    state = new.__dict__
    state.update(obj.__dict__)
    state.update(changes)
    return new


def static(qual: str = "") -> Value:
    return Value(Kind.STATIC, qual=qual) if qual else STATIC


def tensor(origin: Optional[Origin]) -> Value:
    return Value(Kind.TENSOR, origin=origin)


def seq(origin: Optional[Origin], item: Optional[Value] = None, elements: Optional[tuple[Value, ...]] = None) -> Value:
    return Value(Kind.SEQ, origin=origin, item=item, elements=elements)


_RANK = {Kind.STATIC: 0, Kind.FUNC: 1, Kind.FNS: 2, Kind.SEQ: 3, Kind.TENSOR: 4, Kind.MAYBE: 5}


def join(a: Value, b: Value) -> Value:
    """The value a name has after two control-flow paths meet ("may be a tensor" wins). Shape
    facts (``dims``) survive only where both paths agree on them."""
    if a is b:
        return a
    joined = _join(a, b)
    if Kind.STATIC in (a.kind, b.kind):
        # ``loss = F.sum(x) if c else 0.0``: a Python number never makes shapes differ (NDArray and
        # Symbol arithmetic with a scalar is the same), so the tensor path's shape facts hold
        return joined
    if joined.dims is not None and not (a.dims is not None and a.dims.agrees(b.dims)):
        if joined is a or joined is b:  # a new object: identity with a and b is kept in alternatives
            return replace(joined, dims=None, alternatives=_alternatives(a, b))
        return replace(joined, dims=None)
    return joined


def _join(a: Value, b: Value) -> Value:
    if a == b:
        return a
    if a.kind is b.kind and a.kind is Kind.TENSOR:
        return replace(a, keys=a.keys | b.keys, alternatives=_alternatives(a, b))
    if a.kind is b.kind:
        if a.kind is Kind.FNS:
            return replace(a, names=a.names | b.names)
        if a.kind is Kind.STATIC:
            if a.qual != b.qual:
                return STATIC
            return a if a.meta is b.meta else replace(a, meta=None)
        if a.kind is Kind.SEQ:
            elements = None
            if a.elements is not None and b.elements is not None and len(a.elements) == len(b.elements):
                elements = tuple(join(x, y) for x, y in zip(a.elements, b.elements))
            item = _join_opt(a.item, b.item)
            return replace(a, elements=elements, item=item, keys=a.keys | b.keys)
        return replace(a, keys=a.keys | b.keys)
    if {a.kind, b.kind} == {Kind.TENSOR, Kind.SEQ}:
        return Value(Kind.MAYBE, origin=a.origin or b.origin, keys=a.keys | b.keys)
    hi, lo = (a, b) if _RANK[a.kind] >= _RANK[b.kind] else (b, a)
    if hi.kind in (Kind.TENSOR, Kind.MAYBE, Kind.SEQ):
        return replace(hi, keys=hi.keys | lo.keys, alternatives=_alternatives(hi, lo))
    return hi


_MAX_ALTERNATIVES = 256  # a bound for pathological loops; real functions stay far below


def _alternatives(a: Value, b: Value) -> tuple:
    """The tensors a join of ``a`` and ``b`` may be, each once, bounded: ``a`` itself too (the join
    is a new object, ``replace(a, ..)``, so identity with ``a`` is only found here)."""
    out: list = []
    seen: set[int] = set()
    for v in (*a.candidates(), *b.candidates()):
        if id(v) not in seen and v.kind in (Kind.TENSOR, Kind.MAYBE):
            seen.add(id(v))
            out.append(v)  # by identity: alias checks compare objects
    return tuple(out[-_MAX_ALTERNATIVES:])


def _join_opt(a: Optional[Value], b: Optional[Value]) -> Optional[Value]:
    if a is None:
        return b
    if b is None:
        return a
    return join(a, b)
