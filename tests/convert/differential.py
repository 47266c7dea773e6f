"""Differential testing of the conversions: generated ``hybrid_forward`` programs, run both ways.

A grammar of the constructs the conversions handle (tensor ``if``/``elif``/ternaries/early returns,
literal indexing and slicing, item and slice assignment, augmented assignment, ``asscalar``/``np.sum``
arithmetic, ``nd.X`` calls, row loops, shape uses, positional reshapes, aliases, broadcasting
arithmetic and comparisons) mixed with
constructs they must refuse (``print``, values leaving the graph, ``and`` conditions, names in keys,
tensors into part of an array, ...) generates whole modules whose imperative run is well defined:
the generator tracks every tensor's shape, so keys are in range, branches assign equal shapes and
results are never empty.

The oracle (:func:`run_program`), for one program:

* **safe fixes** (``fix_source(unsafe=False)``, ``hybridize-check --fix``): the fixed module run
  imperatively equals the original run imperatively (a safe fix never changes what the code
  computes); if no error finding is left, it also equals it hybridized;
* **transpile** (``fix_source(unsafe=True, exact=True)``, what ``hybridize transpile`` applies): either an error
  finding is left (the module is refused: nothing to verify), or the converted module run
  hybridized equals the original run imperatively, and so does the module ``hybridize transpile``
  actually emits (``emit.output.convert_module``: ``@static_graph`` code on ``hybridize.runtime``).

A difference is a *wrong conversion*; an exception in converted code whose original runs is a
*broken conversion* (the module claims to convert and fails when run). Both are failures. Programs
whose original fails imperatively say nothing and are skipped (the generator avoids them).

Everything runs on ``hybridize.runtime`` with the machinery of ``both_ways.py``;
``tools/differential_conversions.py`` runs many more programs, also on MXNet 1.9.1, and minimizes
what fails.
"""
from __future__ import annotations

import re
import textwrap
import traceback
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from both_ways import BothWays, _build, _call, _set_params, assert_same, forward_inputs, make_inputs, param_values

from hybridize.transpile.check.checker import check_source, fix_source

Shape = tuple[int, ...]

HEADER = """\
import mxnet as mx
import numpy as np
from mxnet import nd
from mxnet.gluon import nn


class Net(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.fc = nn.Dense({units}, flatten=False, in_units={units})
        self.act = nn.Activation("tanh")
        self.scale = 2.0
        self.flag = True

    def hybrid_forward(self, F, x, y):
"""

#: Input shapes the programs are generated for (both inputs share it; every axis a different length).
INPUT_SHAPES: tuple[Shape, ...] = ((2, 3, 4), (3, 4), (2, 3, 4, 5), (4, 3))


# ---------------------------------------------------------------------------------------------
# programs
@dataclass
class Program:
    """A generated module: ``statements`` are top-level statements of ``hybrid_forward`` (each a
    string, possibly several lines), ``returns`` its return expression."""

    shape: Shape
    statements: list[str]
    returns: str

    @property
    def text(self) -> str:
        body = "\n".join([*self.statements, f"return {self.returns}"])
        return HEADER.format(units=self.shape[-1]) + textwrap.indent(body, " " * 8) + "\n"

    def without(self, index: int) -> "Program":
        return Program(self.shape, self.statements[:index] + self.statements[index + 1:], self.returns)


@dataclass
class _State:
    """What the generator knows while it writes a program: tensor names and their shapes."""

    shape: Shape
    tensors: dict[str, Shape] = field(default_factory=dict)
    ints: dict[str, int] = field(default_factory=dict)
    counter: int = 0
    early_return: bool = False

    def fresh(self, prefix: str = "t") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def of_shape(self, shape: Shape) -> list[str]:
        return sorted(n for n, s in self.tensors.items() if s == shape)


def _result_shape(shape: Shape, key: tuple) -> Optional[Shape]:
    """MXNet 1.9.1's basic-indexing result shape (no axis left: ``(1,)``); ``None`` if empty/invalid."""
    try:
        out = np.empty(shape)[key].shape
    except (IndexError, TypeError, ValueError):
        return None
    if any(d == 0 for d in out):
        return None
    return out or (1,)


def _render_component(c: Any) -> str:
    if c is Ellipsis:
        return "..."
    if isinstance(c, slice):
        parts = ["" if c.start is None else str(c.start), "" if c.stop is None else str(c.stop)]
        text = ":".join(parts)
        if c.step is not None:
            text += f":{c.step}"
        return text
    return str(c)


def render_key(key: tuple) -> str:
    return ", ".join(_render_component(c) for c in key) if len(key) != 1 else _render_component(key[0])


# ---------------------------------------------------------------------------------------------
# the grammar (hypothesis strategies)
def strategies():
    """The hypothesis strategy of :class:`Program` (imported lazily: hypothesis is a test extra)."""
    from hypothesis import strategies as st

    def component(draw, dim: int, allow_int: bool = True):
        kind = draw(st.sampled_from(["int", "slice", "whole"] if allow_int else ["slice", "whole"]))
        if kind == "int":
            return draw(st.integers(-dim, dim - 1))
        if kind == "whole":
            return slice(None)
        bound = st.one_of(st.none(), st.integers(-dim - 1, dim + 1))
        step = draw(st.sampled_from([None, None, 1, 2, -1]))
        return slice(draw(bound), draw(bound), step)

    def key_for(draw, shape: Shape) -> Optional[tuple]:
        ndim = len(shape)
        form = draw(st.sampled_from(["lead", "lead", "ellipsis_tail", "ellipsis_slice"]))
        if form == "lead":
            n = draw(st.integers(1, ndim))
            key = tuple(component(draw, shape[k]) for k in range(n))
        elif form == "ellipsis_tail":  # ``x[..., -1]``, ``x[0, ..., 1]``
            lead = draw(st.integers(0, ndim - 1))
            tail = draw(st.integers(1, ndim - lead))
            key = tuple(component(draw, shape[k]) for k in range(lead)) + (Ellipsis,) + tuple(
                draw(st.integers(-shape[ndim - tail + j], shape[ndim - tail + j] - 1)) for j in range(tail))
        else:  # a slice after ``...``: must stay a finding
            key = (Ellipsis, component(draw, shape[-1], allow_int=False))
        return key if _result_shape(shape, key) is not None else None

    def operand(draw, state: _State, shape: Shape) -> str:
        return draw(st.sampled_from(state.of_shape(shape)))

    def elementwise(draw, state: _State, shape: Shape, depth: int = 0) -> str:
        """An expression of tensors of ``shape`` whose value has ``shape``."""
        a = operand(draw, state, shape)
        if depth > 1:
            return a
        options = ["F.relu({a})", "F.tanh({a})", "{a} * {c}", "{a} + {b}", "{a} - {b} * {c}",
                   "F.broadcast_mul({a}, {b})", "F.sigmoid({a})", "-{a}", "{a} / {c2}", "F.abs({a})",
                   "self.act({a})", "{a} * self.scale", "({e}) * {c}", "F.elemwise_add({a}, {b})"]
        if shape[-1] == state.shape[-1]:
            options.append("self.fc({a})")
        template = draw(st.sampled_from(options))
        return template.format(a=a, b=operand(draw, state, shape), c=draw(st.sampled_from(["2", "0.5", "-1.5", "3"])),
                               c2=draw(st.sampled_from(["2", "4.0", "-3"])),
                               e=elementwise(draw, state, shape, depth + 1) if "{e}" in template else "")

    def condition(draw, state: _State) -> str:
        """A one-element tensor condition (MXNet: true when the element is not zero)."""
        t = draw(st.sampled_from(sorted(state.tensors)))
        form = draw(st.sampled_from(["{t}.sum() > {c}", "{t}.mean() < {c}", "F.sum({t}) > {c}", "{t}.max() > {c}",
                                     "({t}.max() - {t}.min()) > {c}", "F.mean({t}) >= {c}", "{t}.sum() != 0",
                                     "{t}.min() < {c}"]))
        return form.format(t=t, c=draw(st.sampled_from(["0", "0.5", "-0.5", "1", "2"])))

    def target(draw, state: _State, shape: Shape) -> str:
        existing = state.of_shape(shape)
        if existing and draw(st.booleans()):
            return draw(st.sampled_from(existing))
        name = state.fresh("h")
        return name

    # -- statements: each returns lines (a string) and updates the state ------------------------
    def s_elementwise(draw, state):
        shape = draw(st.sampled_from(sorted(set(state.tensors.values()))))
        value = elementwise(draw, state, shape)
        name = target(draw, state, shape)
        state.tensors[name] = shape
        return f"{name} = {value}"

    def index_read(draw, state) -> Optional[tuple[str, str]]:
        """A fresh name, given the shape of an index read of some tensor, and the read's text
        (``r3``, ``h[1:]``); ``None`` when the tensor has no key to draw."""
        base = draw(st.sampled_from(sorted(state.tensors)))
        shape = state.tensors[base]
        key = key_for(draw, shape)
        if key is None:
            return None
        name = state.fresh("r")
        state.tensors[name] = _result_shape(shape, key)
        return name, f"{base}[{render_key(key)}]"

    def s_index(draw, state):
        read = index_read(draw, state)
        if read is None:
            return None
        name, value = read
        return f"{name} = {value}"

    def s_index_then_use(draw, state):
        """An index read inside an expression: ``h = F.relu(h[1:]) * 2`` (a new name, new shape)."""
        read = index_read(draw, state)
        if read is None:
            return None
        name, value = read
        wrap = draw(st.sampled_from(["F.relu({v}) * 2", "{v} + 1", "F.tanh({v})", "{v}.reshape((-1,))"]))
        if "reshape" in wrap:
            state.tensors[name] = (int(np.prod(state.tensors[name])),)
        return f"{name} = " + wrap.format(v=value)

    def s_item_assign(draw, state):
        base = draw(st.sampled_from(sorted(state.tensors)))
        shape = state.tensors[base]
        form = draw(st.sampled_from(["scalar", "scalar", "aug", "whole_tensor", "whole_aug", "part_tensor",
                                     "ellipsis", "name_key"]))
        number = draw(st.sampled_from(["1", "-2.5", "0", "3"]))
        if form in ("scalar", "aug"):
            key = key_for(draw, shape)
            if key is None or Ellipsis in key:
                key = (draw(st.integers(-shape[0], shape[0] - 1)),)
            op = "=" if form == "scalar" else draw(st.sampled_from(["+=", "-=", "*=", "/="]))
            if op == "/=" and number == "0":
                number = "2"
            return f"{base}[{render_key(key)}] {op} {number}"
        if form == "ellipsis":
            return f"{base}[...] = {number}"
        others = state.of_shape(shape)
        if form in ("whole_tensor", "whole_aug"):
            value = draw(st.sampled_from(others))
            op = "=" if form == "whole_tensor" else draw(st.sampled_from(["+=", "-=", "*="]))
            return f"{base}[:] {op} {value}" if draw(st.booleans()) else f"{base}[...] {op} {value}"
        if form == "part_tensor":  # a tensor into part of the array: must stay a finding
            if shape[0] < 2:
                return None
            return f"{base}[1:] = {base}[:-1] * 2"
        return f"k = {draw(st.integers(0, shape[0] - 1))}\n{base}[k] = {number}"  # a name in the key

    def s_augassign(draw, state):
        base = draw(st.sampled_from(sorted(state.tensors)))
        shape = state.tensors[base]
        op = draw(st.sampled_from(["+=", "-=", "*=", "/="]))
        value = draw(st.sampled_from([operand(draw, state, shape), "2", "0.5"]))
        if op == "/=" and value not in ("2", "0.5"):
            value = "2"
        return f"{base} {op} {value}"

    def s_alias(draw, state):
        base = draw(st.sampled_from(sorted(state.tensors)))
        name = state.fresh("a")
        state.tensors[name] = state.tensors[base]
        form = draw(st.sampled_from(["{b}", "{b}", "{b}.reshape({s})", "{b}[:]"]))
        return f"{name} = " + form.format(b=base, s=repr(state.tensors[base]) if len(state.tensors[base]) > 1 else
                                          f"({state.tensors[base][0]},)")

    def s_if(draw, state):
        shape = draw(st.sampled_from(sorted(set(state.tensors.values()))))
        names = state.of_shape(shape)
        arms = draw(st.integers(1, 3))  # if / if-elif / if-elif-elif
        has_else = draw(st.booleans())
        assigned = draw(st.lists(st.sampled_from(names), min_size=1, max_size=2, unique=True))
        extra = draw(st.sampled_from(["none"] * 6 + ["print", "temp", "fresh", "sequential", "child", "aug"]))
        lines = []
        for arm in range(arms + (1 if has_else else 0)):
            head = "if" if arm == 0 else ("elif" if arm < arms else "else")
            lines.append(f"{head} {condition(draw, state)}:" if head != "else" else "else:")
            body = []
            for name in assigned:
                if draw(st.booleans()) or not body:
                    body.append(f"{name} = {elementwise(draw, state, shape)}")
            if extra == "print" and arm == 0:
                body.append(f"print({assigned[0]})")
            if extra == "temp" and arm == 0:
                body.insert(0, f"tmp = {elementwise(draw, state, shape)}")
                body.append(f"{assigned[0]} = tmp * 2")
            if extra == "sequential":
                body.append(f"{assigned[0]} = {assigned[0]} + 1")
            if extra == "child" and shape[-1] == state.shape[-1]:
                body.append(f"{assigned[0]} = self.fc({assigned[0]})")
            if extra == "aug":
                body.append(f"{assigned[0]} += 1")
            lines.extend("    " + line for line in body)
        if extra == "fresh":  # a name assigned in every branch, new before the if
            name = state.fresh("h")
            for i, line in enumerate(list(lines)):
                if not line.startswith(" "):
                    lines.insert(lines.index(line) + 1, f"    {name} = {elementwise(draw, state, shape)}")
            if not has_else:
                lines.insert(0, f"{name} = {elementwise(draw, state, shape)}")
            state.tensors[name] = shape
        return "\n".join(lines)

    def s_ifexp(draw, state):
        shape = draw(st.sampled_from(sorted(set(state.tensors.values()))))
        name = target(draw, state, shape)
        a, b = elementwise(draw, state, shape), elementwise(draw, state, shape)
        state.tensors[name] = shape
        return f"{name} = {a} if {condition(draw, state)} else {b}"

    def s_early_return(draw, state):
        if state.early_return:
            return None
        state.early_return = True
        value = elementwise(draw, state, state.shape)
        body = [f"    {value}"]
        if draw(st.booleans()):
            name = state.fresh("e")
            body = [f"    {name} = {elementwise(draw, state, state.shape)}", f"    return {name} * 2"]
        else:
            body = [f"    return {value}"]
        return f"if {condition(draw, state)}:\n" + "\n".join(body)

    def s_asscalar(draw, state):
        shape = draw(st.sampled_from(sorted(set(state.tensors.values()))))
        t = operand(draw, state, shape)
        s = draw(st.sampled_from(sorted(state.tensors)))
        read = draw(st.sampled_from(["{s}.sum().asscalar()", "{s}.mean().asscalar()", "float({s}.max().asscalar())",
                                     "np.sum({s})", "np.max({s})", "np.min({s})", "{s}.norm().asscalar()",
                                     "float({s}.asnumpy().sum())", "{s}.asnumpy().mean()"])).format(s=s)
        form = draw(st.sampled_from(["{t} * {r}", "{r} * {t}", "{t} + {r}", "{t} - {r}", "{t} / ({r} + 10)",
                                     "{t} / {r}"]))
        name = target(draw, state, shape)
        state.tensors[name] = shape
        return f"{name} = " + form.format(t=t, r=read)

    def s_discarded_read(draw, state):
        t = draw(st.sampled_from(sorted(state.tensors)))
        return draw(st.sampled_from([f"{t}.asnumpy()", f"{t}.asscalar()" if state.tensors[t] == (1,) else
                                     f"{t}.asnumpy()", f"{t}.wait_to_read()"]))

    def s_nd(draw, state):
        shape = draw(st.sampled_from(sorted(set(state.tensors.values()))))
        a, b = operand(draw, state, shape), operand(draw, state, shape)
        call = draw(st.sampled_from(["nd.relu({a})", "mx.nd.sigmoid({a})", "nd.broadcast_add({a}, {b})",
                                     "nd.elemwise_mul({a}, {b})", "mx.nd.clip({a}, -1, 1)", "nd.zeros_like({a})",
                                     "nd.ones_like({a}) * 2", "nd.square({a})", "nd.maximum({a}, {b})",
                                     "{a} + nd.ones({s})", "nd.random.uniform(shape={s}) * 0 + {a}",
                                     "nd.Activation({a}, act_type='relu')"]))
        name = target(draw, state, shape)
        state.tensors[name] = shape
        return f"{name} = " + call.format(a=a, b=b, s=repr(shape))

    def s_row_loop(draw, state):
        base = draw(st.sampled_from(sorted(state.tensors)))
        shape = state.tensors[base]
        if len(shape) < 2:
            return None
        row = shape[1:]
        form = draw(st.sampled_from(["stack", "acc", "range_acc", "len_acc", "enumerate", "zip", "unpack", "while",
                                     "concat", "comprehension", "bounded_while", "range_break"]))
        name = state.fresh("l")
        if form == "comprehension":
            state.tensors[name] = shape
            op = draw(st.sampled_from(["F.relu(r) * 2", "r + 1", "F.tanh(r) - r"]))
            return f"{name} = F.stack(*[{op} for r in {base}])"
        if form == "bounded_while":  # at most n steps, while a tensor condition holds
            state.tensors[name] = shape
            n = draw(st.integers(1, 4))
            return (f"{name} = {base} * 1\ni = 0\nwhile i < {n} and F.abs({name}).sum() > 1:\n"
                    f"    {name} = {name} * 0.5\n    i += 1")
        if form == "range_break":
            state.tensors[name] = shape
            n = draw(st.integers(1, 4))
            return (f"{name} = {base} * 1\nfor _ in range({n}):\n    if F.abs({name}).sum() < 1:\n        break\n"
                    f"    {name} = {name} * 0.5")
        if form == "stack":
            state.tensors[name] = shape
            op = draw(st.sampled_from(["F.relu(row) * 2", "row + 1", "F.tanh(row)"]))
            return f"rows = []\nfor row in {base}:\n    rows.append({op})\n{name} = F.stack(*rows)"
        if form == "concat":
            state.tensors[name] = (shape[0],) + (shape[1] * 2,) + shape[2:]
            return (f"outs = []\nfor row in {base}:\n    outs.append(F.concat(row, row * 2, dim=0))\n"
                    f"{name} = F.stack(*outs)")
        if form == "while":  # terminates: the norm halves each time
            state.tensors[name] = shape
            return f"{name} = {base} * 1\nwhile F.abs({name}).sum() > 1:\n    {name} = {name} * 0.5"
        if form == "unpack":
            if shape[0] != 2:
                return None
            other = state.fresh("l")
            state.tensors[name] = state.tensors[other] = row
            return f"{name}, {other} = {base}"
        state.tensors[name] = row
        if form == "zip":
            mates = state.of_shape(shape)
            return (f"{name} = F.zeros_like({base}[0])\nfor r1, r2 in zip({base}, {draw(st.sampled_from(mates))}):\n"
                    f"    {name} = {name} + r1 * r2")
        if form == "acc":
            return f"{name} = F.zeros_like({base}[0])\nfor row in {base}:\n    {name} = {name} + row * 2"
        if form == "range_acc":
            return f"{name} = F.zeros_like({base}[0])\nfor i in range({base}.shape[0]):\n    {name} = {name} + {base}[i]"
        if form == "len_acc":
            return f"{name} = F.zeros_like({base}[0])\nfor i in range(len({base})):\n    {name} = F.maximum({name}, {base}[i])"
        return f"{name} = F.zeros_like({base}[0])\nfor i, row in enumerate({base}):\n    {name} = {name} + row * i"

    def s_shape(draw, state):
        base = draw(st.sampled_from(sorted(state.tensors)))
        shape = state.tensors[base]
        name = state.fresh("s")
        form = draw(st.sampled_from(["first", "len", "prod", "unpack", "value", "positional", "reverse", "keep0",
                                     "zeros", "ones_col", "broadcast", "arange", "split_dims"]))
        if form == "zeros":  # a constructor of a tensor's shape: *_like
            state.tensors[name] = shape
            return f"{name} = F.zeros(shape={base}.shape) + {base}" if draw(st.booleans()) else \
                f"{name} = F.ones({base}.shape) * 2"
        if form == "ones_col":
            state.tensors[name] = (shape[0], 1)
            return f"{name} = F.ones(shape=({base}.shape[0], 1))"
        if form == "broadcast":
            state.tensors[name] = shape
            return f"{name} = F.broadcast_to(F.reshape({base}.sum(), shape=(1,) * {len(shape)}), shape={base}.shape)"
        if form == "arange":
            state.tensors[name] = (shape[0],)
            return f"{name} = F.arange({base}.shape[0])"
        if form == "split_dims" and len(shape) >= 2:
            state.tensors[name] = shape
            return f"b, c = {base}.shape[:2]\n{name} = {base}.reshape((b, c, -1)).reshape({base}.shape)"
        if form == "first" or (form in ("prod", "unpack", "keep0", "split_dims") and len(shape) < 2):
            state.tensors[name] = (shape[0], int(np.prod(shape[1:])))
            return f"{name} = {base}.reshape(({base}.shape[0], -1))"
        if form == "len":
            state.tensors[name] = (shape[0], int(np.prod(shape[1:])))
            return f"n = len({base})\n{name} = F.reshape({base}, shape=(n, -1))"
        if form == "prod":
            state.tensors[name] = (shape[0] * shape[1],) + shape[2:]
            rest = "".join(f", {base}.shape[{k}]" for k in range(2, len(shape)))
            return f"{name} = {base}.reshape(({base}.shape[0] * {base}.shape[1]{rest}))"
        if form == "unpack":
            names = [f"d{k}" for k in range(len(shape))]
            state.tensors[name] = (shape[0], int(np.prod(shape[1:])))
            return f"{', '.join(names)} = {base}.shape\n{name} = {base}.reshape(({names[0]}, {' * '.join(names[1:])}))"
        if form == "value":  # a shape used as a number: stays a finding (HY006)
            state.tensors[name] = shape
            return f"{name} = {base} / {base}.shape[-1]"
        if form == "positional":  # HY011
            state.tensors[name] = (shape[0], int(np.prod(shape[1:])))
            return f"{name} = {base}.reshape({shape[0]}, -1)"
        if form == "reverse":
            state.tensors[name] = (int(np.prod(shape[:-1])), shape[-1])
            return f"{name} = {base}.reshape((-1, {base}.shape[-1]))"
        state.tensors[name] = (shape[0], shape[1], int(np.prod(shape[2:])) if len(shape) > 2 else 1)
        return f"{name} = {base}.reshape(({base}.shape[0], {base}.shape[1], -1))"

    def s_broadcast(draw, state):
        """NDArray arithmetic that broadcasts (HY013): a reduction kept as length-1 axes, a removed or
        re-inserted axis, one row; the result has the shape of ``t``."""
        t = draw(st.sampled_from(sorted(state.tensors)))
        shape = state.tensors[t]
        k = draw(st.integers(0, len(shape) - 1))
        name = target(draw, state, shape)
        form = draw(st.sampled_from([
            "{t} - F.mean({t}, axis={k}, keepdims=True)", "{t} * {t}.sum(axis={k}, keepdims=True)",
            "{t} / (F.abs({t}).max(axis=-1, keepdims=True) + 1)", "F.expand_dims({t}.sum(axis={k}), axis={k}) + {t}",
            "{t}[0:1] * {t}", "({t} > {t}.mean(axis={k}, keepdims=True)) * {t}", "{t} - {t}.sum(axis=0)",
            "F.abs({t}) % ({t}.max(axis={k}, keepdims=True) + 5) + {t}",
            "F.abs({t}) ** F.sigmoid({t}.min(axis={k}, keepdims=True))",
            "({t}[-1:] <= {t}) + ({t} == {t}.max(axis={k}, keepdims=True))",
        ]))
        state.tensors[name] = shape
        return f"{name} = " + form.format(t=t, k=k)

    def s_refused(draw, state):
        t = draw(st.sampled_from(sorted(state.tensors)))
        form = draw(st.sampled_from([
            "print({t})", "if {c} and {c2}:\n    {t} = {t} * 2", "if not {c}:\n    {t} = -{t}",
            "v = {t}.asnumpy()\n{t} = {t} * float(np.exp(v).sum() > 0)", "i = int({t}.argmax().asscalar())\n{t} = {t} * i",
            "if F is nd:\n    print({t}.asnumpy())", "self.cache = {t}", "k = len({t})\n{t} = {t} * k",
            "if self.flag:\n    {t} = {t} + 1", "assert {t}.shape[0] > 0",
        ]))
        return form.format(t=t, c=condition(draw, state), c2=condition(draw, state))

    STATEMENTS = {
        "elementwise": (s_elementwise, 3), "index": (s_index, 4), "index_use": (s_index_then_use, 2),
        "item_assign": (s_item_assign, 4), "augassign": (s_augassign, 3), "alias": (s_alias, 2), "if": (s_if, 4),
        "ifexp": (s_ifexp, 2), "early_return": (s_early_return, 1), "asscalar": (s_asscalar, 3),
        "discarded": (s_discarded_read, 1), "nd": (s_nd, 3), "row_loop": (s_row_loop, 2), "shape": (s_shape, 3),
        "refused": (s_refused, 1), "broadcast": (s_broadcast, 2),
    }
    weighted = [name for name, (_, w) in STATEMENTS.items() for _ in range(w)]

    @st.composite
    def programs(draw, max_statements: int = 6) -> Program:
        shape = draw(st.sampled_from(INPUT_SHAPES))
        state = _State(shape, tensors={"x": shape, "y": shape})
        # both inputs are used as tensors first: an input only ever indexed (``y[0]``, ``len(y)``) may
        # be a list of tensors, which the checker rightly does not assume it is not
        first = draw(st.sampled_from(["h = F.relu(x)", "h = x * 2", "h = self.act(x)", "h = x"]))
        state.tensors["h"] = shape
        statements = ["y = F.relu(y) - x", first]
        for _ in range(draw(st.integers(1, max_statements))):
            kind = draw(st.sampled_from(weighted))
            stmt = STATEMENTS[kind][0](draw, state)
            if stmt is not None:
                statements.append(stmt)
        outputs = ["h"] + sorted(n for n in state.tensors if n not in ("x", "y", "h"))
        # an input the program rebinds or updates is a result too (its last value)
        outputs += [n for n in ("x", "y") if any(re.search(rf"(^|\n)\s*{n}\s*(\[.*\])?\s*[-+*/]?=[^=]", s)
                                                 for s in statements[1:])]
        if state.early_return:
            returns = draw(st.sampled_from(["h * 2", "F.relu(h)", "h"]))
            # an early return of one tensor of the input's shape: the final return is one too
            early = next(i for i, s in enumerate(statements) if s.startswith("if ") and "return" in s)
            statements = statements[:early] + statements[early + 1:] + [statements[early]]
        else:
            returns = ", ".join(outputs)  # every tensor: a conversion's every result is compared
        return Program(shape, statements, returns)

    return programs


# ---------------------------------------------------------------------------------------------
# the oracle
@dataclass
class Outcome:
    """What one program showed. ``status``: ``skipped`` (the original fails imperatively),
    ``refused`` (an error is left after conversion), ``converted`` (no error left, outputs equal),
    ``wrong`` (a converted module computes something else), ``broken`` (converted code raises) or
    ``crash`` (the checker or a conversion itself raised)."""

    status: str
    detail: str = ""
    fixed: str = ""
    safe_fixed: str = ""
    applied: int = 0
    codes: tuple[str, ...] = ()
    result: Optional[BothWays] = None


def _errors(findings) -> list:
    """What refuses a module (errors, and warnings transpile refuses on: ``emit.rewrite.blocking``)."""
    from hybridize.transpile.emit.rewrite import blocking

    return blocking(findings)


def _run_block(text: str, label: str, values: Optional[dict], inputs: list, hybridize: bool, seed: int = 0):
    """Build ``Net`` from ``text``, set its parameters (``values``; ``None``: seeded) and call it."""
    mx, net, _ = _build(text, label, "Net")
    _call(mx, net, inputs)
    if values is None:
        values = param_values({n: p.shape for n, p in net._collect_params_with_prefix().items()}, seed)
    _set_params(net, values)
    if hybridize:
        net.hybridize()
    out = _call(mx, net, inputs)
    if hybridize and not getattr(net, "_cached_graph", None):
        raise AssertionError("the block did not run hybridized")
    return out, values


def _transpiled(text: str) -> Optional[str]:
    """What ``hybridize transpile`` writes for ``text`` (``None``: refused)."""
    import os
    import tempfile

    from hybridize.transpile.emit.imports import Tree
    from hybridize.transpile.emit.output import convert_module

    with tempfile.TemporaryDirectory(prefix="differential_") as tmp:
        path = os.path.join(tmp, "generated.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        result = convert_module(text, path, Tree.for_path(path), "generated.py")
    return result.code


def run_program(text: str, seeds: tuple[int, ...] = (0, 1), emitted: bool = True) -> Outcome:
    """The oracle (see the module doc) for one module ``text`` defining ``Net(x, y)`` (the runtime's
    warnings about unused inputs and parameters are expected here and silenced)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _run_program(text, seeds, emitted)
        except Exception as exc:  # noqa: BLE001 - the checker or a conversion crashed: a failure
            return Outcome("crash", f"checker/converter raises {type(exc).__name__}: {exc}\n"
                                    + traceback.format_exc(limit=-4))


def _run_program(text: str, seeds: tuple[int, ...], emitted: bool) -> Outcome:
    safe_fixed = fix_source(text, "generated.py", unsafe=False)[0]
    applied: list = []
    fixed, count, remaining = fix_source(text, "generated.py", unsafe=True, applied=applied, exact=True)
    codes = tuple(sorted(c for c, _ in applied))
    refused = bool(_errors(remaining))
    outcome = Outcome("refused" if refused else "converted", fixed=fixed, safe_fixed=safe_fixed, applied=count,
                      codes=codes)
    safe_refused = bool(_errors(check_source(safe_fixed, "generated.py"))) if safe_fixed != text else True
    emitted_text = _transpiled(text) if emitted and not refused else None
    for seed in seeds:
        shape = _shape_of(text)
        inputs = make_inputs([(n, shape) for n in forward_inputs(text, "Net", [])], seed)
        try:
            original, values = _run_block(text, "original", None, inputs, False, seed)
        except Exception as exc:  # noqa: BLE001 - the original's failure: nothing to compare
            return Outcome("skipped", f"original fails imperatively: {type(exc).__name__}: {exc}", fixed, safe_fixed,
                           count, codes)
        checks = []
        if safe_fixed != text:
            checks.append(("safe fixes, imperative", safe_fixed, False))
            if not safe_refused:
                checks.append(("safe fixes, hybridized", safe_fixed, True))
        if not refused and fixed != text:
            checks.append(("converted, hybridized", fixed, True))
        if emitted_text is not None:
            checks.append(("transpiled (emitted module)", emitted_text, None))
        for what, code, hybridize in checks:
            try:
                got, _ = _run_block(code, "converted", values, inputs, bool(hybridize))
            except Exception as exc:  # noqa: BLE001 - reported as a broken conversion
                outcome.status, outcome.detail = "broken", (f"{what} (seed {seed}) raises {type(exc).__name__}: {exc}\n"
                                                            + traceback.format_exc(limit=-3))
                return outcome
            try:
                assert_same(original, got, what)
            except AssertionError as exc:
                outcome.status, outcome.detail = "wrong", f"seed {seed}: {exc}"
                return outcome
        if outcome.result is None and not refused:
            outcome.result = BothWays(text, fixed, inputs, values or {}, block="Net", original=original)
    return outcome


def _shape_of(text: str) -> Shape:
    """The input shape a generated module was written for (from its ``nn.Dense`` units and header)."""
    marker = "# input shape: "
    for line in text.splitlines():
        if line.strip().startswith(marker):
            return tuple(int(d) for d in line.strip()[len(marker):].split("x"))
    raise ValueError("not a generated module: no input shape line")


def with_shape_line(program: Program) -> str:
    """The module text, with the input shape recorded (so a pinned regression is self-contained)."""
    shape = "x".join(str(d) for d in program.shape)
    return f"# input shape: {shape}\n" + program.text


# ---------------------------------------------------------------------------------------------
# minimizing a failure
def signature(outcome: Outcome) -> str:
    """What kind of failure ``outcome`` is: its status, the check that failed and, for an exception,
    its type (a reduction must keep it: dropping a statement can leave a name unbound in a branch
    the original never takes, which fails differently)."""
    first = outcome.detail.splitlines()[0] if outcome.detail else ""
    if outcome.status == "broken":
        check, _, rest = first.partition(" (seed")
        return f"broken|{check}|{rest.split('raises ', 1)[-1].split(':', 1)[0]}"
    if outcome.status == "wrong":
        lines = outcome.detail.splitlines()
        check = next((line.split(":")[0] for line in lines if line.startswith(("safe fixes", "converted", "transpiled"))),
                     "")
        return f"wrong|{check}"
    return outcome.status


def minimize(program: Program, status: str, seeds: tuple[int, ...] = (0, 1)) -> Program:
    """Drop statements (and returned names) while the program still fails the same way
    (:func:`signature`)."""
    wanted = signature(run_program(with_shape_line(program), seeds))
    if not wanted.startswith(status):
        return program

    def fails(p: Program) -> bool:
        try:
            return signature(run_program(with_shape_line(p), seeds)) == wanted
        except Exception:  # noqa: BLE001 - a malformed reduction is not the failure
            return False

    changed = True
    while changed:
        changed = False
        for i in range(len(program.statements) - 1, 0, -1):
            candidate = program.without(i)
            if fails(candidate):
                program, changed = candidate, True
        outputs = [o.strip() for o in program.returns.split(",")]
        for i in range(len(outputs)):
            if len(outputs) > 1:
                candidate = Program(program.shape, program.statements, ", ".join(outputs[:i] + outputs[i + 1:]))
                if fails(candidate):
                    program, changed = candidate, True
                    break
    return program


