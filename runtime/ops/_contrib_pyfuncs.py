"""MXNet's Python-level functions of ``nd.contrib`` / ``sym.contrib`` (ported from MXNet 1.9.1's
``ndarray/contrib.py`` and ``symbol/contrib.py``, Apache-2.0): ``foreach``, ``while_loop``, ``cond``
(imperative loops over NDArrays), ``isinf``, ``isfinite``, ``isnan`` (``nd`` only, as MXNet),
``rand_zipfian``.

With Symbols (a hybridized block), ``foreach`` builds MXNet's ``_foreach`` subgraph operator
(``ops/control_flow.py``); ``while_loop`` and ``cond`` would build ``_while_loop`` / ``_cond``,
which this runtime does not have: they raise :class:`~hybridize.runtime.base.HybridizeError`.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..base import HybridizeError

__all__ = ["install"]


def _as_list(obj: Any) -> list:
    return obj if isinstance(obj, list) else list(obj) if isinstance(obj, tuple) else [obj]


def _flatten(args: Any, inout_str: str, is_tensor: Callable[[Any], bool]) -> tuple:
    if is_tensor(args):
        return [args], int(0)
    assert isinstance(args, (list, tuple)), \
        "%s must be (nested) list of NDArray, but got %s of type %s" % (inout_str, str(args), str(type(args)))
    flat, fmts = [], []
    for i in args:
        arg, fmt = _flatten(i, inout_str, is_tensor)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args: Any, fmt: Any) -> tuple:
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        return args[:fmt], args[fmt:]
    assert isinstance(args, (list, tuple)), \
        "output must be (nested) list of NDArray, but got %s of type %s" % (str(args), str(type(args)))
    ret = []
    for i in fmt:
        res, args = _regroup(args, i)
        ret.append(res)
    return ret, args


def _no_graph(name: str) -> Callable:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise HybridizeError(f"contrib.{name} with Symbols builds MXNet's _{name} subgraph operator, which this "
                             "runtime does not have: run the block imperatively (do not hybridize it)")
    fn.__name__ = name
    return fn


def _symbolic_foreach(is_tensor: Callable[[Any], bool]) -> Callable:
    """``sym.contrib.foreach``: traces ``body`` once into the subgraph of one ``_foreach`` node
    (the construction of MXNet 1.9.1's ``symbol/contrib.py``; see ``ops/control_flow.py``)."""

    def foreach(body, data, init_states, name="foreach"):
        """Run a for loop with user-defined computation over Symbols on dimension 0."""
        from ..attribute import AttrScope, unique_subgraph_name
        from ..graph.ir import Entry, Graph, Node, topo_order
        from ..symbol import Symbol, create, var
        from .control_flow import FOREACH, Subgraph

        flat_data, data_fmt = _flatten(data, "foreach input", is_tensor)
        flat_states, state_fmt = _flatten(init_states, "foreach states", is_tensor)
        if not all(is_tensor(d) for d in flat_data) or not flat_data:
            raise TypeError("data should be a Symbol or a nested list of Symbols")
        if not all(is_tensor(st) for st in flat_states):
            raise TypeError("init_states should be a Symbol or a nested list of Symbols")
        outer = [d.outputs[0] for d in flat_data] + [st.outputs[0] for st in flat_states]
        # the body is traced in an attribute scope naming the subgraph, as MXNet does: its nodes
        # (and parameters first used in it) carry __subgraph_name__ in exported JSON
        subgraph_name = unique_subgraph_name(name)
        with AttrScope(__subgraph_name__=subgraph_name):
            # the body's inputs: fresh variables named as MXNet names them ("data0-0")
            fresh_syms = [var(f"{e.node.name}-{e.index}") for e in outer]
            fresh = [v.outputs[0].node for v in fresh_syms]
            d_in = fresh_syms[0] if is_tensor(data) else _regroup(fresh_syms[:len(flat_data)], data_fmt)[0]
            s_in = _regroup(fresh_syms[len(flat_data):], state_fmt)[0] if flat_states else []
            outs, states = body(d_in, s_in)
        flat_outs, out_fmt = _flatten(outs if outs is not None else [], "foreach output", is_tensor)
        flat_new, _ = _flatten(states if states is not None else [], "foreach states", is_tensor)
        if len(flat_new) != len(flat_states):
            raise ValueError(f"foreach: the body returned {len(flat_new)} states for {len(flat_states)} "
                             "initial states")
        heads = [t.outputs[0] for t in flat_outs + flat_new]

        # the subgraph: every node that depends on a fresh variable, copied; whatever the body
        # reads from outside (parameters, values computed before the loop) becomes an input
        depends = {id(v) for v in fresh}
        for n in topo_order(heads):
            if n.op is not None and any(id(e.node) in depends for e in n.inputs):
                depends.add(id(n))
        copies: dict[int, Node] = {id(v): v for v in fresh}
        cuts: dict[Entry, Node] = {}

        def inner(e: Entry) -> Entry:
            if id(e.node) in depends:
                return Entry(copies[id(e.node)], e.index)
            if e not in cuts:
                if e.node.op is None and e.node.extra.get("__subgraph_name__") == subgraph_name:
                    # a parameter first used in the body: copied with its attributes (MXNet's
                    # deepcopy); anything else from outside is cut into a plain variable
                    cuts[e] = Node(None, e.node.name, extra=dict(e.node.extra))
                elif e.node.op is None:
                    cuts[e] = Node(None, e.node.name)
                else:
                    suffix = "_output" if e.node.num_outputs == 1 else f"_output{e.index}"
                    cuts[e] = Node(None, e.node.name + suffix)
            return Entry(cuts[e], 0)

        for n in topo_order(heads):
            if id(n) in depends and n.op is not None:
                copies[id(n)] = Node(n.op, n.name, dict(n.attrs), [inner(e) for e in n.inputs], dict(n.extra))
        sub = Graph([inner(e) for e in heads])
        sub_inputs = sub.variables()
        position = {id(v): i for i, v in enumerate(sub_inputs)}
        for v, what in zip(fresh, ["data"] * len(flat_data) + ["state"] * len(flat_states)):
            if id(v) not in position:
                raise ValueError(f"foreach: the {what} arrays have to be used in the loop body "
                                 f"({v.name!r} is not)")
        names = [v.name for v in sub_inputs]
        if len(set(names)) != len(names):
            raise ValueError(f"foreach: the inputs of the loop body do not have unique names: {names}")
        outer_of = {id(node): e for e, node in cuts.items()}
        remain_locs = [i for i, v in enumerate(sub_inputs) if id(v) in outer_of]
        ins = outer + [outer_of[id(sub_inputs[i])] for i in remain_locs]
        attrs = {"num_args": len(ins) + 1, "num_outputs": len(heads), "num_out_data": len(flat_outs),
                 "in_state_locs": tuple(position[id(v)] for v in fresh[len(flat_data):]),
                 "in_data_locs": tuple(position[id(v)] for v in fresh[:len(flat_data)]),
                 "remain_locs": tuple(remain_locs), "subgraph": Subgraph(sub, sub_inputs)}
        node_syms = create(FOREACH, [Symbol([e]) for e in ins], attrs, None, "_" + name)
        results = [Symbol([e]) for e in node_syms.outputs]
        out_syms = results[:len(flat_outs)]
        st_syms = results[len(flat_outs):]
        out_res = _regroup(out_syms, out_fmt)[0] if flat_outs else []
        st_res = _regroup(st_syms, state_fmt)[0] if flat_states else []
        return out_res, st_res
    return foreach


def install(contrib: Any, ns: dict, is_tensor: Callable[[Any], bool], symbolic: bool) -> None:
    """Adds the functions to ``contrib`` (``nd.contrib`` / ``sym.contrib``); ``ns`` is the parent
    namespace (``nd`` / ``sym``) whose operators they are built from."""

    def isinf(data):
        """Performs an element-wise check to determine if the NDArray contains an infinite element."""
        return data.abs() == np.inf

    def isfinite(data):
        """Performs an element-wise check to determine if the NDArray contains finite elements."""
        is_data_not_nan = data == data
        is_data_not_infinite = data.abs() != np.inf
        return ns["logical_and"](is_data_not_infinite, is_data_not_nan)

    def isnan(data):
        """Performs an element-wise check to determine if the NDArray contains a NaN element."""
        return data != data

    def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
        """Draw random samples from an approximately log-uniform or Zipfian distribution."""
        log_range = math.log(range_max + 1)
        rand = ns["random"].uniform(0, log_range, shape=(num_sampled,), dtype="float64")
        sampled_classes = (rand.exp() - 1).astype("int64") % range_max
        true_cls = true_classes.astype("float64")
        expected_count_true = ((true_cls + 2.0) / (true_cls + 1.0)).log() / log_range * num_sampled
        sampled_cls_fp64 = sampled_classes.astype("float64")
        expected_prob_sampled = ((sampled_cls_fp64 + 2.0) / (sampled_cls_fp64 + 1.0)).log() / log_range
        expected_count_sampled = expected_prob_sampled * num_sampled
        return sampled_classes, expected_count_true, expected_count_sampled

    setattr(contrib, "rand_zipfian", rand_zipfian)
    if symbolic:  # MXNet's sym.contrib has no isinf/isfinite/isnan
        for name in ("while_loop", "cond"):
            setattr(contrib, name, _no_graph(name))
        setattr(contrib, "foreach", _symbolic_foreach(is_tensor))
        return
    for fn in (isinf, isfinite, isnan):
        setattr(contrib, fn.__name__, fn)

    def foreach(body, data, init_states):
        """Run a for loop with user-defined computation over NDArrays on dimension 0."""
        def check_input(inputs, msg):
            ok = all(is_tensor(i) for i in inputs) if isinstance(inputs, list) else is_tensor(inputs)
            assert ok, msg

        flatten, _ = _flatten(data, "foreach input", is_tensor)
        check_input(flatten, "data should be an NDArray or a nested list of NDArrays")
        flatten, _ = _flatten(init_states, "foreach states", is_tensor)
        check_input(flatten, "init_states should be an NDArray or a nested list of NDArrays")
        not_data_list = is_tensor(data)
        num_iters = data.shape[0] if not_data_list else data[0].shape[0]
        states = init_states
        outputs = []
        out_fmt = None
        for i in range(num_iters):
            eles = data[i] if not_data_list else [d[i] for d in data]
            outs, states = body(eles, states)
            outs, out_fmt = _flatten(outs, "foreach output", is_tensor)
            outputs.append(outs)
        outputs = [ns["stack"](*out) for out in zip(*outputs)]
        outputs, _ = _regroup(outputs, out_fmt)
        return outputs, states

    def _to_python_scalar(inputs, type_, name):
        if hasattr(inputs, "asscalar"):
            inputs = inputs.asscalar()
        try:
            return type_(inputs)
        except Exception:  # noqa: BLE001 - MXNet's message
            raise ValueError("Cannot convert %s to python %s" % (name, type_.__name__)) from None

    def while_loop(cond, func, loop_vars, max_iterations=None):
        """Run a while loop with user-defined computation and loop condition."""
        def _func_wrapper(loop_vars):
            step_output, new_loop_vars = func(*loop_vars)
            if step_output is None:
                step_output = []
            if new_loop_vars is None:
                new_loop_vars = []
            if isinstance(step_output, tuple):
                step_output = list(step_output)
            if isinstance(new_loop_vars, tuple):
                new_loop_vars = list(new_loop_vars)
            new_loop_vars = _as_list(new_loop_vars)
            if len(loop_vars) != len(new_loop_vars):
                raise ValueError("The length of loop_vars should be consistent during the loop")
            return step_output, new_loop_vars

        if max_iterations is None:
            raise ValueError("max_iterations should be specified")
        max_iterations = _to_python_scalar(max_iterations, int, "max_iteration")
        if len(loop_vars) == 0:
            raise ValueError("loop_vars should contain at least one element")
        steps = 0
        outputs = []
        out_fmt = None
        not_loop_var_list = is_tensor(loop_vars)
        loop_vars = _as_list(loop_vars)
        while steps < max_iterations and _to_python_scalar(cond(*loop_vars), bool, "Return value of cond"):
            step_output, loop_vars = _func_wrapper(loop_vars)
            step_output, out_fmt = _flatten(step_output, "while output", is_tensor)
            outputs.append(step_output)
            steps += 1
            if len(outputs) != steps or len(step_output) != len(outputs[0]):
                raise ValueError("Number of elements in step_output should be the same in each step")
        stacked_outputs = []
        for i_th, items in enumerate(zip(*outputs), 1):
            items = [x.expand_dims(0) for x in items]
            if steps != max_iterations and items:
                pad_shape = [max_iterations - steps] + list(items[0].shape[1:])
                items = list(items) + [ns["empty"](shape=pad_shape, dtype=items[0].dtype)]
            try:
                stacked_outputs.append(ns["concat"](*items, dim=0))
            except ValueError:
                raise ValueError("\n".join(
                    ["Shapes of %d-th elements in step_outputs are inconsistent, which are:" % i_th]
                    + ["  Step %d, shape is %s" % (i, str(x.shape)) for i, x in enumerate(items)])) from None
        if out_fmt is not None:
            stacked_outputs, _ = _regroup(stacked_outputs, out_fmt)
        if not_loop_var_list:
            loop_vars = loop_vars[0]
        return stacked_outputs, loop_vars

    def cond(pred, then_func, else_func):
        """Run an if-then-else using user-defined condition and computation."""
        if _to_python_scalar(pred, bool, "pred"):
            return then_func()
        return else_func()

    for fn in (foreach, while_loop, cond):
        setattr(contrib, fn.__name__, fn)
