"""MXNet's Python-level (not operator) functions of ``mx.nd`` / ``mx.sym`` built on the registry's ops.

``nd.maximum(x, 0)``, ``nd.power(2, x)``, ``sym.maximum(a, b)``, ``split_v2``... are plain Python in
MXNet: they pick the tensor-tensor op or the scalar op (``_maximum_scalar``) depending on the
arguments. NDArray versions use the broadcasting ops, Symbol versions the same-shape legacy ones
(``_Maximum`` is ``_maximum``), exactly as MXNet 1.9.1's ``ndarray.py``/``symbol.py`` do.
"""
from __future__ import annotations

import operator
from numbers import Number
from typing import Any, Callable

import numpy as np

__all__ = ["install"]

# name: (NDArray tensor op, scalar op, reversed scalar op (None: commutative), python fallback)
_ND = {
    "add": ("broadcast_add", "_plus_scalar", None, operator.add),
    "subtract": ("broadcast_sub", "_minus_scalar", "_rminus_scalar", operator.sub),
    "multiply": ("broadcast_mul", "_mul_scalar", None, operator.mul),
    "divide": ("broadcast_div", "_div_scalar", "_rdiv_scalar", operator.truediv),
    "true_divide": ("broadcast_div", "_div_scalar", "_rdiv_scalar", operator.truediv),
    "modulo": ("broadcast_mod", "_mod_scalar", "_rmod_scalar", operator.mod),
    "power": ("broadcast_power", "_power_scalar", "_rpower_scalar", operator.pow),
    "maximum": ("broadcast_maximum", "_maximum_scalar", None, max),
    "minimum": ("broadcast_minimum", "_minimum_scalar", None, min),
    "hypot": ("broadcast_hypot", "_hypot_scalar", None, lambda a, b: (a * a + b * b) ** 0.5),
    "equal": ("broadcast_equal", "_equal_scalar", None, lambda a, b: float(a == b)),
    "not_equal": ("broadcast_not_equal", "_not_equal_scalar", None, lambda a, b: float(a != b)),
    "greater": ("broadcast_greater", "_greater_scalar", "_lesser_scalar", lambda a, b: float(a > b)),
    "greater_equal": ("broadcast_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar",
                      lambda a, b: float(a >= b)),
    "lesser": ("broadcast_lesser", "_lesser_scalar", "_greater_scalar", lambda a, b: float(a < b)),
    "lesser_equal": ("broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar",
                     lambda a, b: float(a <= b)),
    "logical_and": ("broadcast_logical_and", "_logical_and_scalar", None, lambda a, b: float(bool(a and b))),
    "logical_or": ("broadcast_logical_or", "_logical_or_scalar", None, lambda a, b: float(bool(a or b))),
    "logical_xor": ("broadcast_logical_xor", "_logical_xor_scalar", None, lambda a, b: float(bool(a) != bool(b))),
}
_SYM = {  # MXNet's symbol.py calls the legacy spellings, which also name the nodes (``_maximumscalar0``)
    "maximum": ("_Maximum", "_MaximumScalar", None, max),
    "minimum": ("_Minimum", "_MinimumScalar", None, min),
    "pow": ("_Power", "_PowerScalar", "_RPowerScalar", operator.pow),
    "power": ("_Power", "_PowerScalar", "_RPowerScalar", operator.pow),
    "hypot": ("_Hypot", "_HypotScalar", None, lambda a, b: (a * a + b * b) ** 0.5),
}


def _binary(name: str, tensor_fn: Callable, scalar_fn: Callable, rscalar_fn: Callable | None,
            fallback: Callable, is_tensor: Callable[[Any], bool]) -> Callable:
    def fn(lhs: Any, rhs: Any) -> Any:
        lt, rt = is_tensor(lhs), is_tensor(rhs)
        if lt and rt:
            return tensor_fn(lhs, rhs)
        if lt and isinstance(rhs, Number):
            return scalar_fn(lhs, scalar=float(rhs))
        if rt and isinstance(lhs, Number):
            return (rscalar_fn or scalar_fn)(rhs, scalar=float(lhs))
        if isinstance(lhs, Number) and isinstance(rhs, Number):
            return fallback(lhs, rhs)
        raise TypeError(f"{name}: types ({type(lhs).__name__}, {type(rhs).__name__}) not supported")
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(lhs, rhs): tensor-tensor or tensor-scalar, as MXNet's Python-level function."
    return fn


def _axis_tuple(axes: Any, ndim: int, what: str) -> tuple:
    """``axes`` (an int or a sequence) normalized as numpy's ``normalize_axis_tuple`` does, with
    MXNet's ValueErrors: out of range ("<what> Got <axis>"), or "repeated axis"."""
    seq = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
    out = []
    for a in seq:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"{what}. Got {a}")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError("repeated axis")
    return tuple(out)


def install(namespace: dict, is_tensor: Callable[[Any], bool], symbolic: bool) -> None:
    """Adds the functions to a namespace (``nd``'s or ``sym``'s module globals) unless already there."""
    internal = namespace["_internal"]

    def lookup(op_name: str) -> Callable:
        return getattr(internal, op_name) if op_name.startswith("_") else namespace[op_name]

    table = _SYM if symbolic else _ND
    for name, (t, s, r, fb) in table.items():
        if name in namespace:
            continue
        namespace[name] = _binary(name, lookup(t), lookup(s), lookup(r) if r else None, fb, is_tensor)

    split_v2_op = internal._split_v2

    def split_v2(ary: Any, indices_or_sections: Any, axis: int = 0, squeeze_axis: bool = False) -> Any:
        """Splits at the given indices (a tuple) or into equal sections (an int), as MXNet's split_v2."""
        indices: tuple = ()
        sections = 0
        if isinstance(indices_or_sections, int):
            sections = indices_or_sections
        elif isinstance(indices_or_sections, (tuple, list)):
            indices = (0,) + tuple(indices_or_sections)
        else:
            raise ValueError("indices_or_sections must be an int or a tuple of ints")
        return split_v2_op(ary, indices=indices, axis=axis, squeeze_axis=squeeze_axis, sections=sections)
    namespace.setdefault("split_v2", split_v2)

    linspace_op = internal._linspace

    def linspace(start: float, stop: float, num: int, endpoint: bool = True, ctx: Any = None,
                 dtype: Any = None, **kwargs: Any) -> Any:
        """``num`` evenly spaced values from start to stop (``_linspace``), as MXNet's linspace."""
        return linspace_op(start=start, stop=stop, num=num, endpoint=endpoint, dtype=dtype or "float32", **kwargs)
    namespace.setdefault("linspace", linspace)

    if not symbolic:
        transpose = namespace["transpose"]

        def moveaxis(tensor: Any, source: Any, destination: Any) -> Any:
            """Moves axes of an array to new positions (a transpose), as MXNet's nd.moveaxis: an
            axis out of range, a repeated axis or lists of different lengths raise ValueError."""
            nd_ = len(tensor.shape)
            src = _axis_tuple(source, nd_, "Source should verify 0 <= source < tensor.ndim")
            dst = _axis_tuple(destination, nd_, f"Destination should verify 0 <= destination < tensor.ndim ({nd_})")
            if len(src) != len(dst):
                raise ValueError("`source` and `destination` arguments must have the same number of elements")
            order = [n for n in range(nd_) if n not in src]
            for d, s in sorted(zip(dst, src)):
                order.insert(d, s)
            return transpose(tensor, axes=tuple(order))
        namespace.setdefault("moveaxis", moveaxis)

    hist_op = internal._histogram

    def histogram(a: Any, bins: Any = 10, range: Any = None, **kwargs: Any) -> Any:  # noqa: A002 - MXNet's name
        """Histogram of ``a`` (flattened): given edges (a tensor) or ``bins`` equal bins over ``range``,
        as MXNet's histogram; NDArray without a range: numpy's answer, as MXNet does."""
        if is_tensor(bins):
            return hist_op(a, bins, **kwargs)
        if isinstance(bins, int) and not isinstance(bins, bool):
            if range is None:
                if symbolic:
                    raise ValueError("null range is not supported in symbol mode")
                import warnings

                import numpy as np
                warnings.warn("range is not specified, using numpy's result to ensure consistency with numpy")
                res, edges = np.histogram(a.asnumpy(), bins=bins)
                return namespace["array"](res), namespace["array"](edges)
            return hist_op(a, bin_cnt=bins, range=range, **kwargs)
        raise ValueError("bins argument should be either an integer or an NDArray")
    namespace.setdefault("histogram", histogram)

    if not symbolic:
        onehot_op = internal._onehot_encode

        def onehot_encode(indices: Any, out: Any) -> Any:
            """One-hot rows written into ``out`` (deprecated in MXNet: use one_hot)."""
            return onehot_op(indices, out, out=out)
        namespace.setdefault("onehot_encode", onehot_encode)

    if not symbolic:
        from .ops.optimizer_updates import STATEFUL
        from .ops.registry import get_op

        for op_name, (math, mutated) in STATEFUL.items():
            # MXNet's contrib.adamw_update takes (..., rescale_grad, lr, eta, beta1, ...) positionally
            order = ("lr", "eta", "beta1", "beta2", "epsilon", "wd", "clip_gradient") if "adamw" in op_name else None
            fn = _stateful_update(get_op(op_name), math, mutated, namespace["array"], order)
            if op_name.startswith("_"):
                setattr(internal, op_name, fn)     # _adamw_update: reached through _internal
                contrib = namespace.get("contrib")
                if contrib is not None and op_name.startswith("_multi") and "adamw" in op_name:
                    setattr(contrib, op_name[1:], _multi_adamw_wrapper(fn, op_name.startswith("_multi_mp"),
                                                                        namespace["array"]))
                elif contrib is not None and op_name.startswith("_multi"):
                    setattr(contrib, op_name[1:], _multi_lamb_wrapper(fn, op_name.startswith("_multi_mp")))
                elif contrib is not None:          # and as MXNet's nd.contrib.adamw_update wrappers
                    setattr(contrib, op_name[1:], fn)
            else:
                namespace[op_name] = fn


def _multi_adamw_wrapper(fn: Callable, mp: bool, array: Callable) -> Callable:
    """MXNet's ``nd.contrib.multi_[mp_]adamw_update(weights, grads, mean, var, [weights32,] rescale_grad,
    lrs, wds, etas, out=None, name=None, size=0, **kwargs)`` (gluon-nlp's BERTAdam): lists in,
    interleaved into the internal operator, ``rescale_grad`` a number or a one-value array."""
    def multi_adamw_update(weights: Any, grads: Any, mean: Any, var: Any, *rest: Any, out: Any = None,
                           name: Any = None, size: int = 0, **kwargs: Any) -> Any:
        names = (("weights32",) if mp else ()) + ("rescale_grad", "lrs", "wds", "etas")
        given = dict(zip(names, rest))
        for k in names[len(rest):]:
            given[k] = kwargs.pop(k)
        rescale = given["rescale_grad"]
        if not hasattr(rescale, "asnumpy"):   # MXNet's _get_rescale_grad: a number becomes a (1,) array
            rescale = array([float(rescale)])
        lists = (weights, grads, mean, var) + ((given["weights32"],) if mp else ())
        flat = [a for group in zip(*lists) for a in group] + [rescale]
        return fn(*flat, out=out, num_weights=size or len(weights), lrs=given["lrs"], wds=given["wds"],
                  etas=given["etas"], **kwargs)
    multi_adamw_update.__name__ = "multi_mp_adamw_update" if mp else "multi_adamw_update"
    return multi_adamw_update


def _multi_lamb_wrapper(fn: Callable, mp: bool) -> Callable:
    """MXNet's ``nd.contrib.multi_[mp_]lamb_update(weights, grads, mean, var, [weights32,] step_count, lrs,
    wds, out=None, num_tensors=0, **kwargs)``: lists in, interleaved into the internal operator."""
    def multi_lamb_update(weights: Any, grads: Any, mean: Any, var: Any, *rest: Any, out: Any = None,
                          num_tensors: int = 0, **kwargs: Any) -> Any:
        names = (("weights32",) if mp else ()) + ("step_count", "lrs", "wds")
        given = dict(zip(names, rest))
        for k in names[len(rest):]:
            given[k] = kwargs.pop(k)
        lists = (weights, grads, mean, var) + ((given["weights32"],) if mp else ())
        flat = [a for group in zip(*lists) for a in group]
        return fn(*flat, out=out, num_tensors=num_tensors or len(weights), step_count=given["step_count"],
                  learning_rates=given["lrs"], wds=given["wds"], **kwargs)
    multi_lamb_update.__name__ = "multi_mp_lamb_update" if mp else "multi_lamb_update"
    return multi_lamb_update


def _stateful_update(op: Any, math: Callable, mutated: Any, array: Callable,
                     positional: tuple | None = None) -> Callable:
    """``nd.<optimizer>_update``: the new weight (into ``out`` when given) and, as MXNet's
    FMutateInputs, the new optimizer states written into the state arrays passed in."""
    from .base import HybridizeError, operator_error
    from .ops.attrs import AttrError

    variadic = callable(op.inputs)         # multi_sgd_update(*weights_and_grads, num_weights=...)
    names = [] if variadic else list(op.inputs)

    def fn(*args: Any, out: Any = None, name: Any = None, **kwargs: Any) -> Any:
        if variadic:
            arrays = [a for a in args if hasattr(a, "asnumpy")]
            args = args[len(arrays):]
        else:
            arrays = list(args[:len(names)])
            for k in names[len(arrays):]:
                if k not in kwargs:
                    raise TypeError(f"{op.name}: missing input {k!r}")
                arrays.append(kwargs.pop(k))
            args = args[len(names):]
        order = list(positional) if positional else [p.name for p in op.params]
        for p, v in zip([p for p in order if p not in kwargs], args):
            kwargs[p] = v
        try:
            attrs = op.resolve(op.coerce_attrs(kwargs))
        except AttrError as e:
            raise TypeError(str(e)) from None
        mut = mutated(attrs) if callable(mutated) else mutated
        values = [a._data for a in arrays] if getattr(math, "reads_only", False) else [a.asnumpy() for a in arrays]
        # an op whose result depends on the output aliasing the weight (MXNet's kernel reads the
        # weight after writing it) says so with ``math.in_place``
        run = getattr(math, "in_place", math) if out is not None and arrays and out is arrays[0] else math
        try:
            results = run(attrs, *values)
        except HybridizeError:
            raise
        except (ValueError, IndexError, TypeError, ZeroDivisionError) as e:  # MXNet: MXNetError
            shapes = ", ".join(str(v.shape) for v in values)
            raise operator_error(e, f"{op.name}: {type(e).__name__}: {e} (input shapes: {shapes})") from e
        n_out = len(results) - len(mut)
        for idx, value in zip(mut, results[n_out:]):
            arrays[idx][:] = value
        if variadic:                       # a list of weights, as MXNet's multi-output call
            outs = list(out) if out is not None else [array(r, dtype=r.dtype) for r in results[:n_out]]
            if out is not None:
                for o, r in zip(outs, results[:n_out]):
                    o[:] = r
            return outs
        if out is not None:
            out[:] = results[0]
            return out
        return array(results[0], dtype=results[0].dtype)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = op.doc
    return fn
