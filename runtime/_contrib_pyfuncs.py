"""MXNet's Python-level functions of ``nd.contrib`` / ``sym.contrib`` (ported from MXNet 1.9.1's
``ndarray/contrib.py`` and ``symbol/contrib.py``, Apache-2.0): ``foreach``, ``while_loop``, ``cond``
(imperative loops over NDArrays), ``isinf``, ``isfinite``, ``isnan`` (``nd`` only, as MXNet),
``rand_zipfian``.

With Symbols (a hybridized block) they build MXNet's ``_foreach`` / ``_while_loop`` / ``_cond``
subgraph operators (``_trace_control_flow.py``, ``ops/control_flow.py``).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np


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
        from ._trace_control_flow import cond as trace_cond, foreach as trace_foreach, while_loop as trace_while_loop

        def flatten(args, what):
            return _flatten(args, what, is_tensor)

        def foreach(body, data, init_states, name="foreach"):
            """Run a for loop with user-defined computation over Symbols on dimension 0."""
            return trace_foreach(flatten, _regroup, is_tensor, body, data, init_states, name)

        def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
            """Run a while loop with user-defined computation and loop condition (Symbols)."""
            return trace_while_loop(flatten, _regroup, is_tensor, cond, func, loop_vars, max_iterations, name)

        def cond(pred, then_func, else_func, name="cond"):
            """Run an if-then-else using user-defined condition and computation (Symbols)."""
            return trace_cond(flatten, _regroup, is_tensor, pred, then_func, else_func, name)

        for fn in (foreach, while_loop, cond):
            setattr(contrib, fn.__name__, fn)
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
