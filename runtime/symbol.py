"""Symbolic graphs, as ``mxnet.symbol`` (``mx.sym``): a Symbol is a list of graph output entries.

The op functions (``sym.FullyConnected(data=x, num_hidden=10, name='fc1')``) are generated from
the operator registry like ``nd``'s; inputs that are not given become new variables named
``<name>_<input>`` (``fc1_weight``), and nodes are named by the current ``NameManager``.
Arithmetic follows MXNet's Symbol: ``a + b`` is ``elemwise_add`` (no broadcasting),
``a + 1.5`` is ``_plus_scalar``.
"""
from __future__ import annotations

import builtins
from typing import Any, Iterator

import numpy as _np

from ._frontend import bind_call as _bind_call, build as _build_frontend, placement as _placement
from .attribute import current_attrs
from .name import current as _current_name
from .base import HybridizeError, NotImplementedForSymbol
from .graph.infer import infer_shapes
from .graph.ir import EDITS, Entry, Graph, Node, topo_order
from .ops._util import known as _known_shape
from .ops.attrs import format_value
from .ops.registry import OpDef, get_op

__all__ = ["Symbol", "var", "Variable", "Group", "load", "load_json", "zeros", "ones", "full", "arange"]

# mshadow type flags, as MXNet writes them into ``__dtype__``
DTYPE_TO_MX = {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5, "int64": 6,
               "bool": 7}


class _SymbolTruthValue(NotImplementedForSymbol, NotImplementedError):
    """``bool(symbol)``: MXNet's NotImplementedForSymbol, with the way out."""

    def __str__(self) -> str:
        return (super().__str__() + " The truth value of a Symbol is unknown until it runs: use F.where "
                "or F.contrib.cond instead of a Python condition")


class Symbol:
    """One or more outputs of a graph. Immutable: operations build new nodes."""

    __slots__ = ("_outputs", "_walk")

    def __init__(self, outputs: list[Entry]):
        self._outputs = list(outputs)
        self._walk: tuple | None = None

    # -- structure ---------------------------------------------------------------------------
    @property
    def outputs(self) -> list[Entry]:
        return list(self._outputs)

    def graph(self) -> Graph:
        """The graph of everything these outputs depend on (nodes shared, not copied)."""
        return Graph(self._outputs, list(self._walked()[0]))

    def _walked(self) -> tuple:
        """(nodes in order, argument names, auxiliary state names), walked once per symbol: binding
        a Module asks for them a dozen times, each a walk of every node of an unrolled graph. The
        nodes of a symbol do not change (operations build new ones); an edit through the API
        (``ir.EDITS``) makes it walk again."""
        walk = getattr(self, "_walk", None)      # unset after __setstate__
        if walk is None or walk[0] != EDITS[0]:
            g = Graph(self._outputs)
            walk = self._walk = (EDITS[0], g.nodes, [n.name for n in g.arguments()],
                                 [n.name for n in g.aux_variables()])
        return walk[1:]

    @property
    def name(self) -> str | None:
        return self._outputs[0].node.name if len(self._outputs) == 1 else None

    def list_arguments(self) -> list[str]:
        return list(self._walked()[1])

    def list_auxiliary_states(self) -> list[str]:
        return list(self._walked()[2])

    def list_inputs(self) -> list[str]:
        return [n.name for n in self.graph().variables()]

    def list_outputs(self) -> list[str]:
        return [e.node.output_names()[e.index] for e in self._outputs]

    def get_internals(self) -> "Symbol":
        entries = [Entry(n, i) for n in topo_order(self._outputs) for i in range(n.num_outputs)]
        return Symbol(entries)

    def get_children(self) -> "Symbol | None":
        """The inputs of the head node(s), each head node once (None for a variable)."""
        heads: dict[int, Node] = {}
        for o in self._outputs:
            heads.setdefault(id(o.node), o.node)
        ins = [e for n in heads.values() for e in n.inputs]
        return Symbol(ins) if ins else None

    def attr(self, key: str) -> str | None:
        """The attribute ``key`` of the head node as a string (``lr_mult`` reads ``__lr_mult__``)."""
        if len(self._outputs) != 1:
            return None
        return _node_attrs(self._outputs[0].node).get(key)

    def list_attr(self, recursive: bool = False) -> dict[str, str]:
        """Attributes of the head node: op parameters and annotations, the hidden keys
        (``__lr_mult__``, ``__ctx_group__``, ...) also without underscores, as MXNet lists them."""
        if recursive:
            raise DeprecationWarning("Symbol.list_attr with recursive=True has been deprecated. "
                                     "Please use attr_dict instead.")
        return _node_attrs(self._outputs[0].node)

    def attr_dict(self) -> dict[str, dict[str, str]]:
        """Node name -> its attributes (as :meth:`list_attr`), for every node that has some."""
        out = {}
        for n in self.graph().nodes:
            d = _node_attrs(n)
            if d:
                out[n.name] = d
        return out

    def _set_attr(self, **kwargs: Any) -> None:
        """Sets string annotations on the head node (``lr_mult`` is stored as ``__lr_mult__``)."""
        node = self._outputs[0].node
        for k, v in kwargs.items():
            if not isinstance(v, str):
                raise ValueError("Set Attr only accepts string values")
            node.extra[_hidden_key(k)] = v

    def __len__(self) -> int:
        return len(self._outputs)

    def __iter__(self) -> Iterator["Symbol"]:
        return (Symbol([e]) for e in self._outputs)

    def __getitem__(self, index: int | str) -> "Symbol":
        if isinstance(index, str):
            names = self.list_outputs()
            matches = [i for i, n in enumerate(names) if n == index or n == index + "_output"]
            if not matches:
                raise ValueError(f"cannot find output {index!r} in {names}")
            index = matches[0]
        if isinstance(index, builtins.slice):  # the module's own ``slice`` is the op
            return Symbol(self._outputs[index])
        if not -len(self._outputs) <= index < len(self._outputs):
            raise IndexError(f"symbol has {len(self._outputs)} output(s), index {index} is out of range")
        return Symbol([self._outputs[index]])

    def __repr__(self) -> str:
        if len(self._outputs) == 1:
            return f"<Symbol {self.name}>"
        return "<Symbol group [" + ", ".join(self.list_outputs()) + "]>"

    def __bool__(self) -> bool:
        raise _SymbolTruthValue(self.__bool__, "bool")

    def __copy__(self) -> "Symbol":
        return Symbol(list(self._outputs))

    def __deepcopy__(self, memo: dict) -> "Symbol":
        return Symbol(self.graph().copy().outputs)

    def __hash__(self) -> int:
        return id(self)

    # -- inference ---------------------------------------------------------------------------
    def _shape_query(self, args: tuple, kwargs: dict) -> dict:
        known = dict(kwargs)
        if args:
            for nm, s in zip(self.list_arguments(), args):
                if s is not None:
                    known[nm] = s
        return known

    def _infer_shapes(self, args: tuple, kwargs: dict) -> tuple:
        """(argument, output, auxiliary) shapes; None where nothing is known."""
        g = self.graph()
        shapes = infer_shapes(g, self._shape_query(args, kwargs), override_hints=True)
        get = lambda key: shapes.get(key)  # noqa: E731
        return ([get((id(n), 0)) for n in g.arguments()], [get((id(e.node), e.index)) for e in g.outputs],
                [get((id(n), 0)) for n in g.aux_variables()])

    def infer_shape_partial(self, *args: Any, **kwargs: Any) -> tuple:
        """As :meth:`infer_shape`, but unknown shapes are ``()`` and unknown dimensions 0 (no warning)."""
        arg, out, aux = self._infer_shapes(args, kwargs)
        fix = lambda ss: [() if s is None else tuple(s) for s in ss]  # noqa: E731
        return fix(arg), fix(out), fix(aux)

    def infer_shape(self, *args: Any, **kwargs: Any) -> tuple:
        """(argument shapes, output shapes, auxiliary shapes), as MXNet. When some shape stays
        unknown it warns and returns ``(None, None, None)``; shapes that contradict raise."""
        arg, out, aux = self._infer_shapes(args, kwargs)
        # an unknown dimension in a variable's shape (0 in legacy shapes, -1 with NumPy shape semantics)
        # leaves it unknown; an op may compute a 0 (empty slice)
        if any(_incomplete_shape(s) for s in arg + aux) or any(s is None for s in out):
            import warnings
            warnings.warn("Cannot decide shape for the following arguments (0s in shape means unknown "
                          "dimensions). Consider providing them as input:\n" +
                          "\n".join(f"\t{n}: {s if s is not None else ()}"
                                    for n, s in zip(self.list_arguments(), arg) if _incomplete_shape(s)),
                          stacklevel=2)
            return None, None, None
        return [tuple(s) for s in arg], [tuple(s) for s in out], [tuple(s) for s in aux]

    def infer_type_partial(self, *args: Any, **kwargs: Any) -> tuple:
        """(argument, output, auxiliary) dtypes as numpy types, None where unknown, as MXNet."""
        g = self.graph()
        known = {}
        names = self.list_arguments()
        if len(args) > len(names):
            raise ValueError(f"infer_type: {len(args)} positional types for {len(names)} arguments")
        for nm, d in zip(names, args):
            if d is not None:
                known[nm] = d
        for nm, d in kwargs.items():
            if d is not None:
                known[nm] = d
        dt = _partial_dtypes(g, known)
        t = lambda key: dt[key].type if dt.get(key) is not None else None  # noqa: E731
        return ([t((id(n), 0)) for n in g.arguments()], [t((id(e.node), e.index)) for e in g.outputs],
                [t((id(n), 0)) for n in g.aux_variables()])

    def infer_type(self, *args: Any, **kwargs: Any) -> tuple:
        """As :meth:`infer_type_partial`; ``(None, None, None)`` with a warning if a type stays unknown."""
        arg, out, aux = self.infer_type_partial(*args, **kwargs)
        if any(t is None for t in arg + out + aux):
            import warnings
            warnings.warn("Cannot decide type for the following arguments. Consider providing them as input:\n" +
                          "\n".join(f"\t{n}: {t}" for n, t in zip(self.list_arguments(), arg) if t is None),
                          stacklevel=2)
            return None, None, None
        return arg, out, aux

    # -- serialization -----------------------------------------------------------------------
    def debug_str(self) -> str:
        """The graph as nnvm prints it (MXNet's ``Symbol.debug_str``): the outputs, then every node
        in depth-first order, each operator with its inputs and attributes (sorted by name)."""
        outs = self._outputs
        if len(outs) == 1 and outs[0].node.op is None:
            return f"Variable:{outs[0].node.name}\n"
        lines = ["Symbol Outputs:"]
        lines += [f"\toutput[{i}]={e.node.name}({e.index})" for i, e in enumerate(outs)]
        for n in self.graph().nodes:
            if n.op is None:
                lines.append(f"Variable:{n.name}")
                continue
            lines += ["--------------------", f"Op:{n.op.name}, Name={n.name}", "Inputs:"]
            lines += [f"\targ[{i}]={e.node.name}({e.index})" + (" version=0" if e.node.op is None else "")
                      for i, e in enumerate(n.inputs)]
            attrs = {**n.extra, **n.op.format_attrs(n.attrs)}
            if attrs:
                lines.append("Attrs:")
                lines += [f"\t{k}={v}" for k, v in sorted(attrs.items())]
        return "\n".join(lines) + "\n"

    # NDArray-only methods MXNet's Symbol carries only to refuse them
    def _ndarray_only(name: str):  # noqa: N805 - a helper run at class creation
        def method(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedForSymbol(name, None)
        method.__name__ = name
        method.__doc__ = "Not available for Symbol (NDArray only): raises NotImplementedForSymbol, as MXNet."
        return method

    as_in_context = _ndarray_only("as_in_context")
    asnumpy = _ndarray_only("asnumpy")
    asscalar = _ndarray_only("asscalar")
    detach = _ndarray_only("detach")
    backward = _ndarray_only("backward")
    wait_to_read = _ndarray_only("wait_to_read")
    copy = _ndarray_only("copy")
    del _ndarray_only

    def as_nd_ndarray(self) -> "Symbol":
        """``self`` (MXNet's legacy Symbol is already the 'nd' kind)."""
        return self

    def as_np_ndarray(self) -> "Symbol":
        """The np-mode Symbol of the same outputs (``runtime/symbol_numpy.py``'s ``_Symbol``)."""
        from .symbol_numpy import as_np
        return as_np(self)

    def tojson(self) -> str:
        from .graph import mxnet_json
        return mxnet_json.dumps(self.graph())

    def save(self, fname: str, remove_amp_cast: bool = True) -> None:
        from .graph import mxnet_json
        mxnet_json.save(fname, self.graph())

    # -- pickling: through the JSON, as MXNet (``{'handle': self.tojson()}``) ---------------------
    def __getstate__(self) -> dict:
        return {"handle": self.tojson()}

    def __setstate__(self, state: dict) -> None:
        from .graph import mxnet_json
        self._outputs = list(mxnet_json.loads(state["handle"]).outputs)
        self._walk = None

    # -- execution ---------------------------------------------------------------------------
    def bind(self, ctx: Any, args: Any, args_grad: Any = None, grad_req: Any = "write",
             aux_states: Any = None, group2ctx: dict | None = None, shared_exec: Any = None) -> Any:
        """An :class:`~.executor.Executor` over the given arrays (list in ``list_arguments()`` order
        or dict by name; shared, not copied), as MXNet's ``Symbol.bind``."""
        from .executor import bind
        return bind(self, ctx, args, args_grad, grad_req, aux_states, group2ctx, shared_exec)

    def simple_bind(self, ctx: Any, grad_req: Any = "write", type_dict: dict | None = None,
                    stype_dict: dict | None = None, group2ctx: dict | None = None,
                    shared_arg_names: list | None = None, shared_exec: Any = None,
                    shared_buffer: dict | None = None, **kwargs: Any) -> Any:
        """An executor with every array allocated (zeros) from the input shapes in ``kwargs``."""
        from .executor import simple_bind
        return simple_bind(self, ctx, grad_req, type_dict, stype_dict, group2ctx, shared_arg_names,
                           shared_exec, shared_buffer, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> "Symbol":
        """Composition: a copy of this graph with free variables replaced, ``net(data=other)``."""
        s = self.__copy__()
        s._compose(*args, **kwargs)
        return s

    def _compose(self, *args: Any, **kwargs: Any) -> None:
        """Replaces variables by name (kwargs) or, for an atomic symbol, in argument order (args)."""
        kwargs.pop("name", None)
        if args and kwargs:
            raise TypeError("compose only accept input Symbols either as positional or keyword arguments, not both")
        for v in list(args) + list(kwargs.values()):
            if not isinstance(v, Symbol):
                raise TypeError("Compose expect `Symbol` as arguments")
        g = self.graph().copy()
        variables = {n.name: n for n in g.arguments()}
        if args:
            heads = {id(e.node) for e in g.outputs}
            if not all(n.op is None or id(n) in heads for n in g.nodes):
                raise HybridizeError("General composition only support kwargs for now "
                                     "(positional inputs need an atomic symbol)")
            if len(args) > len(variables):
                raise HybridizeError(f"compose: {len(args)} inputs for {len(variables)} arguments")
            kwargs = dict(zip(self.list_arguments(), args))
        unknown = [k for k in kwargs if k not in variables]
        if unknown:
            raise HybridizeError(f"compose: {', '.join(unknown)} not found among the arguments "
                                 f"{list(variables)}")
        repl = {id(variables[k]): _entry(v, None, k) for k, v in kwargs.items()}
        for n in g.nodes:
            n.inputs = [repl.get(id(e.node), e) for e in n.inputs]
        self._outputs = [repl.get(id(e.node), e) for e in g.outputs]
        self._walk = None
        EDITS[0] += 1

    def _gen_atomic_symbol(self) -> "Symbol":
        """A new node with the head's op and attributes whose inputs are fresh variables named after
        the op's inputs (``data``, ``weight``, ...): compose it to apply the op to other symbols."""
        node = self._outputs[0].node
        if node.op is None:
            raise HybridizeError("_gen_atomic_symbol: the head of this symbol is a variable, not an op")
        inputs = [Entry(Node(None, nm), 0) for nm in node.input_names]
        new = Node(node.op, node.name, node.attrs, inputs, node.extra)
        return Symbol([Entry(new, i) for i in range(new.num_outputs)])

    def eval(self, ctx: Any = None, **kwargs: Any) -> list:
        """Runs the graph on NDArrays given by variable name; returns a list of NDArrays."""
        from .graph.interpret import evaluate
        from .ndarray import NDArray
        values = {k: (v._data if isinstance(v, NDArray) else _np.asarray(v)) for k, v in kwargs.items()}
        return [NDArray(o) for o in evaluate(self.graph(), values)]

    def reshape(self, *args: Any, **kwargs: Any) -> "Symbol":
        if args and isinstance(args[0], (list, tuple)):
            # MXNet's Symbol.reshape(shape, reverse): a second positional binds to ``reverse``
            kwargs["shape"] = tuple(args[0])
            if len(args) > 1:
                kwargs["reverse"] = args[1]
            args = ()
        elif args and all(isinstance(a, (int, _np.integer)) and not isinstance(a, bool) for a in args):
            kwargs["shape"] = tuple(int(a) for a in args)  # x.reshape(0, -1), as NDArray.reshape
            args = ()
        return _reshape(self, *args, **kwargs)

    def astype(self, dtype: Any) -> "Symbol":
        return globals()["Cast"](self, dtype=dtype)


def _is_tensor(v: Any) -> bool:
    return isinstance(v, Symbol)


# Annotations MXNet also lists without underscores (``__lr_mult__`` is listed as ``lr_mult`` too) and
# stores with them when set without (MXSymbolSetAttr's hidden keys).
HIDDEN_KEYS = ("lr_mult", "wd_mult", "ctx_group", "force_mirroring", "mirror_stage")


def _hidden_key(key: str) -> str:
    return f"__{key}__" if key in HIDDEN_KEYS else key


def _node_attrs(node: Node) -> dict[str, str]:
    """A node's attributes as MXNet lists them: annotations, hidden keys mirrored, op parameters."""
    out: dict[str, str] = {}
    for k, v in node.extra.items():
        out[k] = v
        if k.startswith("__") and k.endswith("__") and k[2:-2] in HIDDEN_KEYS:
            out[k[2:-2]] = v
    if node.op is not None:
        out.update(node.op.format_attrs(node.attrs))
    return out


def _incomplete_shape(s: Any) -> bool:
    return not _known_shape(s)


def _fixed_output_types(n: Node, ins: list, dt: dict) -> None:
    """Outputs whose type does not depend on the unknown inputs (``Cast``'s dtype attribute) are known."""
    try:
        a = n.op.dtypes(n.resolved, [d if d is not None else _np.dtype(_np.float16) for d in ins])
        b = n.op.dtypes(n.resolved, [d if d is not None else _np.dtype(_np.float64) for d in ins])
    except Exception:  # noqa: BLE001 - an op that rejects the probe types has no fixed type
        return
    for i, (x, y) in enumerate(zip(a, b)):
        if _np.dtype(x) == _np.dtype(y) and dt.get((id(n), i)) is None:
            dt[(id(n), i)] = _np.dtype(x)


def _partial_dtypes(graph: Graph, known: dict) -> dict:
    """(id(node), index) -> dtype or None: MXNet's type inference without a float32 default. An
    op whose inputs are all known gives its outputs' types; a variable feeding an op next to known
    inputs takes their (first) type, as MXNet's element-wise and layer rules do (FullyConnected's
    weight is float64 next to float64 data), except next to integer inputs (indices), where it takes
    float32 (Embedding's weight next to int32 indices)."""
    from .graph.infer import var_dtype_hint
    dt: dict = {}
    for n in graph.variables():
        d = known.get(n.name)
        dt[(id(n), 0)] = _np.dtype(d) if d is not None else var_dtype_hint(n)
    for _ in range(4):
        changed = False
        for n in graph.nodes:
            if n.op is None:
                continue
            ins = [dt.get((id(e.node), e.index)) for e in n.inputs]
            if any(d is None for d in ins):
                have = [d for d in ins if d is not None]
                if not have:
                    _fixed_output_types(n, ins, dt)
                    continue
                fill = have[0] if have[0].kind in "fc" else _np.dtype(_np.float32)
                group = n.op.same_dtype
                grouped = range(len(ins)) if group == "all" else (group or ())
                shared = next((ins[i] for i in grouped if i < len(ins) and ins[i] is not None), None)
                for i, (e, d) in enumerate(zip(n.inputs, ins)):
                    if d is None and e.node.op is None:  # inputs of one dtype take it (concat of int32)
                        dt[(id(e.node), 0)] = shared if shared is not None and i in grouped else fill
                        changed = True
                ins = [dt.get((id(e.node), e.index)) for e in n.inputs]
                if any(d is None for d in ins):
                    continue
            n.op.check_same_dtype(ins)  # as MXNet's inference: two dtypes where one is required
            outs = n.op.dtypes(n.resolved, ins)
            for i, d in enumerate(outs):
                if dt.get((id(n), i)) is None:
                    dt[(id(n), i)] = _np.dtype(d)
                    changed = True
        if not changed:
            break
    return dt


def _entry(v: Symbol, op: OpDef | None, slot: str) -> Entry:
    if len(v._outputs) != 1:
        raise HybridizeError(f"{op.name if op else 'compose'}: input {slot!r} is a group of {len(v._outputs)} symbols; "
                             "pass a single output (index it)")
    return v._outputs[0]


# MXNet's FSetInputVarAttrOnCompose: the initializer an operator gives a variable input (by input index)
# that has none of its own, so Module.init_params / export-then-load initialize it as MXNet does
_INPUT_VAR_INIT = {
    "LeakyReLU": {1: '["Constant", {"value": 0.25}]'},
    "IdentityAttachKLSparseReg": {1: '["zero", {}]'},
    **{bn: {3: '["zero", {}]', 4: '["one", {}]'}
       for bn in ("BatchNorm", "BatchNorm_v1", "_contrib_BatchNormWithReLU", "_contrib_SyncBatchNorm")},
}


def create(op: OpDef, inputs: list, given: dict, name: str | None, hint: str,
           attr: dict | None = None, input_names: list[str] | None = None) -> Symbol:
    """Adds one op node (plus variables for missing inputs) and returns its outputs."""
    node_name = _current_name().get(name, hint)
    names = input_names if input_names is not None else op.input_names(op.resolve(given))
    extra = {_hidden_key(k): (v if isinstance(v, str) else format_value(v))
             for k, v in {**current_attrs(), **(attr or {})}.items()}
    entries = []
    var_attrs = None
    for slot, v in zip(names, inputs):
        if v is None:
            if var_attrs is None:  # as MXNet: a variable it creates carries the op's attributes
                var_attrs = {**extra, **op.format_attrs(given)} if extra else {}
            entries.append(Entry(Node(None, f"{node_name}_{slot}", extra=var_attrs), 0))
        else:
            entry = _entry(v, op, slot)
            if op.aux and slot in op.aux and entry.node.op is not None:
                # MXNet 1.9.1 (nnvm symbolic.cc): "Mutation target can only be Variable"
                raise HybridizeError(f"{op.name} '{node_name}': mutation target {slot!r} can only be a Variable, "
                                     f"got the output of {entry.node.op.name} '{entry.node.name}' "
                                     f"(MXNet: Mutation target can only be Variable)")
            entries.append(entry)
    for index, init in _INPUT_VAR_INIT.get(op.name, {}).items():
        if index < len(entries) and entries[index].node.op is None:
            var = entries[index].node
            if "__init__" not in var.extra:
                var.extra = {**var.extra, "__init__": init}  # its own dict: auto-created variables share one
    node = Node(op, node_name, given, entries, extra)
    return Symbol([Entry(node, i) for i in range(node.num_outputs)])


def _make_function(op: OpDef, called_as: str):
    # MXNet names a node after the function's public name: sym.contrib.box_nms -> box_nms0
    hint = _placement(called_as)[1].lower()

    def fn(*args: Any, **kwargs: Any) -> Symbol:
        hidden = {k: kwargs.pop(k) for k in HIDDEN_KEYS if k in kwargs and op.param(k) is None}
        # ``__layout__='TNC'`` and other ``__key__`` arguments are node attributes, as MXNet's creator keeps them
        hidden.update({k: kwargs.pop(k) for k in [k for k in kwargs if k.startswith("__") and k.endswith("__")]
                       if not _is_tensor(kwargs[k])})
        call = _bind_call(op, args, kwargs, _is_tensor)
        attr = {**(call.attr or {}), **{k: str(v) for k, v in hidden.items()}} if hidden else call.attr
        return create(op, call.inputs, call.given, call.name, hint, attr, call.input_names)
    return fn


def _apply(op_name: str, inputs: list, hint: str, **attrs: Any) -> Symbol:
    op = get_op(op_name)
    return create(op, inputs, op.coerce_attrs(attrs), None, hint)


_ARITH = {
    # dunder: (symbol-symbol op, hint, scalar op, hint, reversed scalar op, hint)
    "add": ("elemwise_add", "_plus", "_plus_scalar", "_plusscalar", "_plus_scalar", "_plusscalar"),
    "sub": ("elemwise_sub", "_minus", "_minus_scalar", "_minusscalar", "_rminus_scalar", "_rminusscalar"),
    "mul": ("elemwise_mul", "_mul", "_mul_scalar", "_mulscalar", "_mul_scalar", "_mulscalar"),
    "truediv": ("elemwise_div", "_div", "_div_scalar", "_divscalar", "_rdiv_scalar", "_rdivscalar"),
    "mod": ("_mod", "_mod", "_mod_scalar", "_modscalar", "_rmod_scalar", "_rmodscalar"),
    "pow": ("_power", "_power", "_power_scalar", "_powerscalar", "_rpower_scalar", "_rpowerscalar"),
}
_COMPARE = {
    "eq": ("_equal", "_equal_scalar"), "ne": ("_not_equal", "_not_equal_scalar"),
    "gt": ("_greater", "_greater_scalar"), "ge": ("_greater_equal", "_greater_equal_scalar"),
    "lt": ("_lesser", "_lesser_scalar"), "le": ("_lesser_equal", "_lesser_equal_scalar"),
}


def _install_arithmetic() -> None:
    from .ops.registry import find_op

    def binop(sym_op: str, sym_hint: str, sc_op: str, sc_hint: str, reverse: bool):
        def method(self: Symbol, other: Any) -> Any:
            if isinstance(other, Symbol):
                a, b = (other, self) if reverse else (self, other)
                return _apply(sym_op, [a, b], sym_hint)
            if isinstance(other, (int, float, _np.number, bool)):
                return _apply(sc_op, [self], sc_hint, scalar=float(other) if isinstance(other, bool) else other)  # "2" stays "2", as MXNet
            return NotImplemented
        return method

    for dunder, (op, h, sop, sh, rop, rh) in _ARITH.items():
        if find_op(op) and find_op(sop):
            setattr(Symbol, f"__{dunder}__", binop(op, h, sop, sh, False))
        if find_op(op) and find_op(rop):
            setattr(Symbol, f"__r{dunder}__", binop(op, h, rop, rh, True))
    if hasattr(Symbol, "__truediv__"):
        Symbol.__div__ = Symbol.__truediv__  # type: ignore[attr-defined]
    for dunder, (op, sop) in _COMPARE.items():
        if find_op(op) and find_op(sop):
            # MXNet's symbol.py compares with the non-legacy ops: nodes named _greater_scalar0
            m = binop(op, op, sop, sop, False)

            def cmp(self: Symbol, other: Any, _m=m, _d=dunder) -> Any:
                if other is None and _d in ("eq", "ne"):
                    return _d == "ne"
                return _m(self, other)
            setattr(Symbol, f"__{dunder}__", cmp)
    if find_op("_mul_scalar"):
        Symbol.__neg__ = lambda self: _apply("_mul_scalar", [self], "_mulscalar", scalar=-1.0)  # type: ignore
    Symbol.__pos__ = lambda self: self  # type: ignore[assignment]


def _install_fluent() -> None:
    from .ops.registry import all_ops
    g = globals()
    for op in all_ops():
        if not op.fluent:
            continue
        for nm in (op.name, *op.aliases):
            space, public = _placement(nm)
            if space or hasattr(Symbol, public):
                continue
            fn = g.get(public)
            if fn is not None:
                setattr(Symbol, public, lambda self, *a, _fn=fn, **k: _fn(self, *a, **k))


# -- variables and groups ----------------------------------------------------------------------
def var(name: str, attr: dict | None = None, shape: Any = None, lr_mult: float | None = None,
        wd_mult: float | None = None, dtype: Any = None, init: Any = None, stype: str | None = None,
        **kwargs: Any) -> Symbol:
    """A variable (data input or parameter), annotated as MXNet does (``__shape__``, ``__dtype__``, ...)."""
    if not isinstance(name, str):
        raise TypeError("Expect a string for variable `name`")
    extra: dict[str, str] = {_hidden_key(k): (v if isinstance(v, str) else format_value(v))
                             for k, v in {**current_attrs(), **(attr or {})}.items()}
    if shape is not None:
        extra["__shape__"] = format_value(tuple(shape))
    if lr_mult is not None:
        extra["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        extra["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        extra["__dtype__"] = str(DTYPE_TO_MX[_np.dtype(dtype).name])
    if init is not None:
        extra["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        extra["__storage_type__"] = str({"default": 0, "row_sparse": 1, "csr": 2}[stype])
    for k, v in kwargs.items():
        if k.startswith("__") and k.endswith("__"):
            extra[k] = v if isinstance(v, str) else format_value(v)
        else:
            raise ValueError(f"Attribute name={k} is not supported. Additional attributes must start and end with double underscores")
    return Symbol([Entry(Node(None, name, extra=extra), 0)])


Variable = var


def Group(symbols: list[Symbol]) -> Symbol:
    """One symbol with the outputs of all of ``symbols``."""
    return Symbol([e for s in symbols for e in s._outputs])


def load_json(json_str: str) -> Symbol:
    from .graph import mxnet_json
    return Symbol(mxnet_json.loads(json_str).outputs)


def load(fname: str) -> Symbol:
    from .graph import mxnet_json
    return Symbol(mxnet_json.load(fname).outputs)


def zeros(shape: Any, dtype: Any = None, **kwargs: Any) -> Symbol:
    return globals()["_internal"]._zeros(shape=shape, dtype=dtype or "float32", **kwargs)


def ones(shape: Any, dtype: Any = None, **kwargs: Any) -> Symbol:
    return globals()["_internal"]._ones(shape=shape, dtype=dtype or "float32", **kwargs)


def full(shape: Any, val: Any, dtype: Any = None, **kwargs: Any) -> Symbol:
    return globals()["_internal"]._full(shape=shape, dtype=dtype or "float32", value=float(val), **kwargs)


def arange(start: float, stop: float | None = None, step: float = 1.0, repeat: int = 1,
           infer_range: bool = False, name: str | None = None, dtype: Any = None) -> Symbol:
    return globals()["_internal"]._arange(start=start, stop=stop, step=step, repeat=repeat,
                                          infer_range=infer_range, name=name, dtype=dtype or "float32")


_build_frontend(globals(), _make_function, __name__, _is_tensor, symbolic=True)
_reshape = globals().get("reshape") or globals().get("Reshape")
_install_arithmetic()
_install_fluent()
Symbol.split_v2 = lambda self, *a, **k: split_v2(self, *a, **k)  # type: ignore[attr-defined]  # noqa: F821
Symbol.__abs__ = lambda self: self.abs()  # type: ignore[attr-defined]

# MXNet's ``mxnet.symbol.symbol`` submodule (``Symbol``, ``var``, ``Group``, ...: code writes
# ``mx.sym.symbol.Symbol`` and ``from mxnet.symbol.symbol import Symbol``) is this module.
import sys as _sys  # noqa: E402

symbol = _sys.modules[__name__]
_sys.modules.setdefault(__name__ + ".symbol", symbol)

# ``mx.sym.np`` / ``mx.sym.npx``: the np-mode namespaces (``runtime/symbol_numpy.py``, built from the
# table the imperative ``mx.np`` is built from), loaded on first use.


def __getattr__(name: str) -> Any:
    if name in ("np", "npx", "numpy", "numpy_extension"):
        from . import symbol_numpy
        return symbol_numpy.np if name in ("np", "numpy") else symbol_numpy.npx
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
