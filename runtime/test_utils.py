"""``mxnet.test_utils`` on numpy: the helpers users' own MXNet test suites import.

Tolerances, comparison and random-input helpers behave as MXNet 1.9.1's (same defaults per dtype,
same error messages' content); executor-based checks (``check_symbolic_forward``,
``check_symbolic_backward``, ``check_numeric_gradient`` with ``numeric_grad``, ``simple_forward``,
``check_consistency``, forward and backward) go through :meth:`Symbol.bind` (backward on autograd's
tape); sparse arrays are not offered (dense CPU arrays only); ``download`` and the ``get_*`` data helpers
use files already in place (as MXNet skips a download then) and never access the network.
"""
from __future__ import annotations

import numbers
import os
import sys
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable

import numpy as np
import numpy.testing as npt

from . import ndarray as nd
from .base import NoGradientError
from .context import Context, current_context
from .ndarray import NDArray, array  # noqa: F401  (array: MXNet's test_utils exports it)
from .symbol import Symbol
from .util import getenv, setenv, use_np  # noqa: F401  (MXNet's test_utils re-exports them)

mx = sys.modules[__package__]  # ``mx`` too, as MXNet's test_utils (``import mxnet as mx``)

# No __all__: ``from mxnet.test_utils import *`` exports every public name, modules included (np, sys,
# os, mx), as MXNet's module does; test files rely on it.


# -- contexts and default tolerances -------------------------------------------------------------
def default_context() -> Context:
    """The context tests run on: the current one (always a CPU here)."""
    return current_context()


def set_default_context(ctx: Context) -> None:
    """Makes ``ctx`` the current context of this thread (what ``default_context()`` returns)."""
    Context._default_ctx.value = ctx


def default_dtype() -> type:
    return np.float32


_INT_KINDS = [np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64]


def default_rtols() -> dict:
    """Relative tolerance per dtype, as MXNet's (float16 1e-2, float32 1e-4, float64 1e-5, ints 0)."""
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5,
            **{np.dtype(t): 0 for t in _INT_KINDS}}


def default_atols() -> dict:
    """Absolute tolerance per dtype, as MXNet's (float16 1e-1, float32 1e-3, float64 1e-20, ints 0)."""
    return {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20,
            **{np.dtype(t): 0 for t in _INT_KINDS}}


def default_numeric_eps() -> dict:
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat: Any) -> np.dtype:
    """The dtype that decides tolerances (no TF32 GPUs here: the array's own dtype)."""
    return np.dtype(dat.dtype)


def get_tolerance(dat: Any, tol: Any, default_tol: dict) -> float:
    """``tol`` if it is a number, else its entry (or the default's) for ``dat``'s dtype."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    tol = {} if tol is None else tol
    return tol.get(dtype, default_tol.get(dtype, 0))


def get_tols(x: Any, y: Any, rtol: Any, atol: Any) -> tuple:
    """(rtol, atol) for comparing ``x`` and ``y``: the larger default of their two dtypes."""
    x = np.array(x) if isinstance(x, numbers.Number) else x
    y = np.array(y) if isinstance(y, numbers.Number) else y
    return (max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols())),
            max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols())))


def get_atol(atol: Any = None, dtype: Any = np.dtype(np.float64)) -> float:
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_rtol(rtol: Any = None, dtype: Any = np.dtype(np.float64)) -> float:
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_etol(etol: Any = None) -> float:
    return 0 if etol is None else etol


# -- random inputs ---------------------------------------------------------------------------------
def random_arrays(*shapes: tuple) -> Any:
    """Standard-normal float32 numpy arrays, one per shape (a single array for a single shape)."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes: tuple, **kwargs: Any) -> list:
    low = kwargs.pop("low", 0.0)
    high = kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", default_dtype())
    if kwargs:
        raise TypeError("Got unexpected argument/s : " + str(kwargs.keys()))
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population: list, k: int) -> list:
    assert 0 <= k <= len(population)
    pop = population[:]
    np.random.shuffle(pop)
    return pop[0:k]


def rand_ndarray(shape: tuple, stype: str = "default", density: Any = None, dtype: Any = None,
                 modifier_func: Any = None, shuffle_csr_indices: bool = False, distribution: Any = None,
                 ctx: Context | None = None) -> NDArray:
    """A standard-normal NDArray of ``shape`` (dense storage only)."""
    if stype != "default":
        raise NotImplementedError(f"rand_ndarray: storage type {stype!r} is not supported "
                                  "(the runtime has dense arrays only)")
    return nd.array(random_arrays(shape), dtype=dtype, ctx=ctx or default_context())


def rand_shape_2d(dim0: int = 10, dim1: int = 10, allow_zero_size: bool = False) -> tuple:
    low = 0 if allow_zero_size else 1
    return np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1)


def rand_shape_3d(dim0: int = 10, dim1: int = 10, dim2: int = 10, allow_zero_size: bool = False) -> tuple:
    low = 0 if allow_zero_size else 1
    return np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1), np.random.randint(low, dim2 + 1)


def rand_shape_nd(num_dim: int, dim: int = 10, allow_zero_size: bool = False) -> tuple:
    low = 0 if allow_zero_size else 1
    return tuple(np.random.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low: int, x_high: int, y_low: int, y_high: int) -> tuple:
    return (np.random.randint(x_low, x_high, dtype=np.int64), np.random.randint(y_low, y_high, dtype=np.int64))


def create_2d_tensor(rows: int, columns: int, dtype: Any = np.int64) -> NDArray:
    a = np.arange(0, rows).reshape(rows, 1)
    return nd.array(np.broadcast_to(a, shape=(a.shape[0], columns)), dtype=dtype)


def create_vector(size: int, dtype: Any = np.int64) -> NDArray:
    return nd.arange(0, size, dtype=dtype)


def get_identity_mat(size: int) -> NDArray:
    return nd.array(np.eye(size))


def get_identity_mat_batch(size: int) -> NDArray:
    return nd.array(np.stack([np.eye(size)] * 2))


def assign_each(the_input: np.ndarray, function: Callable | None) -> np.ndarray:
    """``function`` applied to every element (a copy when ``function`` is None)."""
    if function is None:
        return np.array(the_input)
    return np.vectorize(function, otypes=[the_input.dtype])(the_input) if the_input.size else np.array(the_input)


def assign_each2(input1: np.ndarray, input2: np.ndarray, function: Callable | None) -> np.ndarray:
    if function is None:
        return np.array(input1)
    assert input1.shape == input2.shape
    return np.vectorize(function, otypes=[input1.dtype])(input1, input2) if input1.size else np.array(input1)


def np_reduce(dat: np.ndarray, axis: Any, keepdims: bool, numpy_reduce_func: Callable) -> np.ndarray:
    """``numpy_reduce_func`` over several axes one at a time (MXNet's reference reductions)."""
    axis = [axis] if isinstance(axis, int) else (list(axis) if axis is not None else list(range(dat.ndim)))
    ret = dat
    for i in reversed(sorted(axis)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        shape = list(dat.shape)
        for i in axis:
            shape[i] = 1
        ret = ret.reshape(tuple(shape))
    return ret


# -- comparisons -----------------------------------------------------------------------------------
def _numpy(x: Any) -> Any:
    return x.asnumpy() if isinstance(x, NDArray) else x


def same(a: Any, b: Any) -> bool:
    """Exactly equal values and shapes."""
    return np.array_equal(_numpy(a), _numpy(b))


def checkShapes(a: Any, b: Any) -> None:  # noqa: N802  (MXNet's name)
    if a.shape != b.shape:
        raise AssertionError(npt.build_err_msg([a, b], err_msg=f"a.shape = {a.shape} and b.shape = {b.shape} are not equal"))


def almost_equal(a: Any, b: Any, rtol: Any = None, atol: Any = None, equal_nan: bool = False,
                 use_broadcast: bool = True) -> bool:
    """np.allclose with MXNet's default tolerances (float64's when not given)."""
    a, b = _numpy(a), _numpy(b)
    if not use_broadcast:
        checkShapes(a, b)
    rtol, atol = get_rtol(rtol), get_atol(atol)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and a.size > _CLOSE_CHUNK:
        # np.isclose is elementwise: chunk by chunk it gives the same verdict, with its temporaries
        # in cache (gradients of 100M-element inputs were compared at memory speed, five times over)
        fa, fb = a.reshape(-1), b.reshape(-1)
        # a chunk of equal values is close (with tolerances >= 0) without np.isclose's arithmetic
        # (gradients compared are mostly equal, often zeros); NaNs are never equal: isclose decides
        same = rtol >= 0 and atol >= 0
        return all((same and np.array_equal(fa[i:i + _CLOSE_CHUNK], fb[i:i + _CLOSE_CHUNK]))
                   or np.isclose(fa[i:i + _CLOSE_CHUNK], fb[i:i + _CLOSE_CHUNK], rtol=rtol, atol=atol,
                                 equal_nan=equal_nan).all() for i in range(0, fa.size, _CLOSE_CHUNK))
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


_CLOSE_CHUNK = 1 << 15


def _find_max_violation(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> tuple:
    with np.errstate(invalid="ignore"):
        absdiff = np.where(np.equal(a, b), 0, np.abs(a - b))
        violation = absdiff / (atol + rtol * np.abs(b) + 1e-20)
    loc = np.argmax(violation)
    return tuple(int(i) for i in np.unravel_index(loc, violation.shape)), np.max(violation)


def _location_error(a: np.ndarray, b: np.ndarray, index: tuple, names: tuple, max_error: bool = False) -> str:
    return "Location of %serror: %s, %s=%.8f, %s=%.8f" % ("maximum " if max_error else "", str(index),
                                                          names[0], a[index], names[1], b[index])


def assert_almost_equal(a: Any, b: Any, rtol: Any = None, atol: Any = None, names: tuple = ("a", "b"),
                        equal_nan: bool = False, use_broadcast: bool = True, mismatches: tuple = (10, 10)) -> None:
    """Raises AssertionError naming the worst element unless ``a`` and ``b`` are close.

    Tolerances default per dtype (the larger of the two arrays' defaults), as MXNet's."""
    if not use_broadcast:
        checkShapes(a, b)
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _numpy(a), _numpy(b)
    if getattr(a, "dtype", None) == np.bool_ and getattr(b, "dtype", None) == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if almost_equal(a, b, rtol, atol, equal_nan=equal_nan):
        return
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        a, b = np.broadcast_arrays(a, b)
    index, rel = _find_max_violation(a, b, rtol, atol)
    if index != ():
        msg = "Error %f exceeds tolerance rtol=%e, atol=%e.\n%s" % (
            rel, rtol, atol, _location_error(a, b, index, names, max_error=True))
    else:
        msg = "Error %f exceeds tolerance rtol=%e, atol=%e.\n" % (rel, rtol, atol)
    with np.printoptions(threshold=4, suppress=True):
        raise AssertionError(npt.build_err_msg([a, b], err_msg=msg, names=names))


def assert_allclose(a: Any, b: Any, rtol: float = 1e-07, atol: float = 0, equal_nan: bool = True) -> None:
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_with_err(a: Any, b: Any, rtol: Any = None, atol: Any = None, etol: Any = None,
                                 names: tuple = ("a", "b"), equal_nan: bool = False,
                                 mismatches: tuple = (10, 10)) -> None:
    """Like assert_almost_equal, but a fraction ``etol`` of the elements may be off."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _numpy(a), _numpy(b)
    equals = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    err = 1 - np.count_nonzero(equals) / equals.size
    if err > etol:
        index, rel = _find_max_violation(a, b, rtol, atol)
        msg = "Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %f%% > %f%%).\n%s" % (
            rel, rtol, atol, 100 * err, 100 * etol, _location_error(a, b, index, names, max_error=True))
        raise AssertionError(npt.build_err_msg([a, b], err_msg=msg, names=names))


def assert_almost_equal_ignore_nan(a: Any, b: Any, rtol: Any = None, atol: Any = None,
                                   names: tuple = ("a", "b")) -> None:
    a, b = np.copy(_numpy(a)), np.copy(_numpy(b))
    nan_mask = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_exception(f: Callable, exception_type: type, *args: Any, **kwargs: Any) -> None:
    """Fails unless ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f"{getattr(f, '__name__', f)} did not raise {exception_type.__name__}")


def compare_ndarray_tuple(t1: Any, t2: Any, rtol: Any = None, atol: Any = None) -> None:
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def compare_optimizer(opt1: Any, opt2: Any, shape: Any, dtype: Any, w_stype: str = "default",
                      g_stype: str = "default", rtol: float = 1e-4, atol: float = 1e-5, compare_states: bool = True,
                      ntensors: int = 1) -> None:
    """MXNet's check that two optimizers (a Python reference and the real one) give the same states and
    weights after one update from the same random weight and gradient; a list of shapes compares
    ``opt2``'s aggregated multi-tensor update with ``opt1``'s per-tensor ones. Dense storage only."""
    from copy import deepcopy
    if w_stype != "default" or g_stype != "default":
        raise NotImplementedError("compare_optimizer: sparse storage is not supported by the hybridize runtime")
    if not isinstance(shape, list):
        assert ntensors == 1
        w2 = nd.random.uniform(shape=shape, ctx=default_context(), dtype=dtype)
        w1 = w2.copyto(default_context())
        g2 = nd.random.uniform(shape=shape, ctx=default_context(), dtype=dtype)
        g1 = g2.copyto(default_context())
        state1 = opt1.create_state_multi_precision(0, w1)
        state2 = opt2.create_state_multi_precision(0, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(0, w1, g1, state1)
        opt2.update_multi_precision(0, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
    else:
        w1 = tuple(nd.random.uniform(shape=s, ctx=default_context(), dtype=dtype) for s in shape)
        g1 = tuple(nd.random.uniform(shape=s, ctx=default_context(), dtype=dtype) for s in shape)
        w2, g2 = deepcopy(w1), deepcopy(g1)
        state2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
        opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
        for i in range(ntensors):
            state1 = opt1.create_state_multi_precision(i, w1[i])
            opt1.update_multi_precision(i, w1[i], g1[i], state1)
            if compare_states:
                compare_ndarray_tuple(state1, state2[i], rtol, atol)
            compare_ndarray_tuple(w1[i], w2[i], rtol, atol)


def same_array(array1: NDArray, array2: NDArray) -> bool:
    """Do the two NDArrays share memory? (Writes to ``array1`` and undoes it, as MXNet's.)"""
    array1[:] += 1
    if not same(array1.asnumpy(), array2.asnumpy()):
        array1[:] -= 1
        return False
    array1[:] -= 1
    return same(array1.asnumpy(), array2.asnumpy())


def collapse_sum_like(a: np.ndarray, shape: tuple) -> np.ndarray:
    """``a`` summed over the axes that ``shape`` broadcasts (``shape`` must broadcast to ``a``)."""
    assert len(a.shape) >= len(shape)
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    ndim_diff = len(a.shape) - len(shape)
    axes = list(range(ndim_diff))
    for i, s in enumerate(shape):
        if s != a.shape[i + ndim_diff]:
            assert s == 1
            axes.append(i + ndim_diff)
    return np.sum(a, axis=tuple(axes)).reshape(shape)


def same_symbol_structure(sym1: Symbol, sym2: Symbol) -> bool:
    """Same op at every node position of the two graphs' JSON."""
    import json
    n1, n2 = json.loads(sym1.tojson())["nodes"], json.loads(sym2.tojson())["nodes"]
    return all(a["op"] == b["op"] for a, b in zip(n1, n2))


# -- running symbols -------------------------------------------------------------------------------
def _sorted_dict(d: dict) -> OrderedDict:
    return OrderedDict(sorted(d.items(), key=lambda t: t[0]))


def _parse_location(sym: Symbol, location: Any, ctx: Context, dtype: Any = np.float32) -> OrderedDict:
    """Argument name -> NDArray from a list (in ``list_arguments()`` order) or a dict of all of them."""
    assert isinstance(location, (dict, list, tuple))
    if isinstance(location, dict):
        if set(location.keys()) != set(sym.list_arguments()):
            raise ValueError("Symbol arguments and keys of the given location do not match."
                             f"symbol args:{set(sym.list_arguments())}, location.keys():{set(location.keys())}")
    else:
        location = dict(zip(sym.list_arguments(), location))
    return _sorted_dict({k: nd.array(v, ctx=ctx, dtype=v.dtype if dtype == "asnumpy" else dtype)
                         if isinstance(v, np.ndarray) else v for k, v in location.items()})


def _parse_aux_states(sym: Symbol, aux_states: Any, ctx: Context, dtype: Any = np.float32) -> dict | None:
    if aux_states is None:
        return None
    if isinstance(aux_states, dict):
        if set(aux_states.keys()) != set(sym.list_auxiliary_states()):
            raise ValueError("Symbol aux_states names and given aux_states do not match."
                             f"symbol aux_names:{set(sym.list_auxiliary_states())}, "
                             f"aux_states.keys:{set(aux_states.keys())}")
    else:
        aux_states = dict(zip(sym.list_auxiliary_states(), aux_states))
    return {k: nd.array(v, ctx=ctx, dtype=v.dtype if dtype == "asnumpy" else dtype) for k, v in aux_states.items()}


def simple_forward(sym: Symbol, ctx: Context | None = None, is_train: bool = False, **inputs: Any) -> Any:
    """Runs ``sym`` on numpy inputs given by name; numpy output (a list if several)."""
    exe = sym.bind(ctx or default_context(), args={k: nd.array(v) for k, v in inputs.items()})
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def check_symbolic_forward(sym: Symbol, location: Any, expected: Any, rtol: Any = None, atol: Any = None,
                           aux_states: Any = None, ctx: Context | None = None, equal_nan: bool = False,
                           dtype: Any = np.float32) -> list:
    """Binds ``sym`` at ``location`` (list or dict of numpy arrays), runs forward (inference) and
    compares every output with ``expected`` (list, or dict by output name); returns the outputs."""
    assert dtype == "asnumpy" or dtype in (np.float16, np.float32, np.float64)
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    exe = sym.bind(ctx=ctx, args=location, aux_states=aux, grad_req="null")
    exe.forward(is_train=False)
    for name, expect, output in zip(sym.list_outputs(), expected, exe.outputs):
        assert_almost_equal(expect, output, rtol, atol, (f"EXPECTED_{name}", f"FORWARD_{name}"),
                            equal_nan=equal_nan)
    return exe.outputs


def _no_gradients(what: str) -> NoGradientError:
    return NoGradientError(f"{what}: the hybridize runtime computes no gradients here")


def _sorted_items(d: dict) -> list:
    return sorted(d.items(), key=lambda t: t[0])


def numeric_grad(executor: Any, location: dict, aux_states: Any = None, eps: float = 1e-4,
                 use_forward_train: bool = True, dtype: Any = np.float32) -> dict:
    """Central finite differences of ``sum(executor.outputs[0])`` w.r.t. each float argument in
    ``location`` (name -> numpy array), one element at a time, as MXNet's (Theano's verify_grad)."""
    assert dtype in (np.float16, np.float32, np.float64)
    approx_grads = {k: np.zeros(v.shape, dtype=dtype) for k, v in location.items()}
    for k, v in location.items():
        executor.arg_dict[k][:] = nd.array(v, dtype=dtype)
    for k in location:
        location[k] = np.asarray(location[k], order="C")
    # the executor's dictionaries once, and the perturbed values written as ``dtype`` straight into
    # the bound array (what ``nd.array(v, dtype)`` then ``[:] =`` writes): thousands of forwards
    arg_dict = executor.arg_dict
    aux = [(executor.aux_dict[key], val) for key, val in aux_states.items()] if aux_states is not None else []
    for k, v in location.items():
        if v.dtype.kind != "f":
            continue
        old_value = v.copy()
        target, flat, old_flat, grad_flat = arg_dict[k], v.ravel(), old_value.ravel(), approx_grads[k].ravel()
        for i in range(int(np.prod(v.shape))):
            flat[i] += eps / 2.0
            target[:] = v.astype(dtype, copy=False)
            for arr, val in aux:
                arr[:] = val
            executor.forward(is_train=use_forward_train)
            f_peps = executor.outputs[0].asnumpy()
            flat[i] -= eps
            target[:] = v.astype(dtype, copy=False)
            for arr, val in aux:
                arr[:] = val
            executor.forward(is_train=use_forward_train)
            f_neps = executor.outputs[0].asnumpy()
            grad_flat[i] = (f_peps - f_neps).sum() / eps
            flat[i] = old_flat[i]
        target[:] = old_value.astype(dtype, copy=False)
    return approx_grads


def check_numeric_gradient(sym: Symbol, location: Any, aux_states: Any = None, numeric_eps: Any = None,
                           rtol: Any = None, atol: Any = None, grad_nodes: Any = None, use_forward_train: bool = True,
                           ctx: Context | None = None, grad_stype_dict: Any = None, dtype: Any = np.float32) -> None:
    """Checks ``sym``'s backward pass against finite differences of ``sum(sym * random projection)``
    at ``location``, for every argument in ``grad_nodes`` (all by default; a dict gives grad_reqs)."""
    assert dtype in (np.float16, np.float32, np.float64)
    ctx = ctx or default_context()
    location = _parse_location(sym=sym, location=location, ctx=ctx, dtype=dtype)
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    aux = _parse_aux_states(sym=sym, aux_states=aux_states, ctx=ctx, dtype=dtype)
    aux_states_npy = {k: v.asnumpy() for k, v in aux.items()} if aux is not None else None
    if grad_nodes is None:
        grad_nodes = sym.list_arguments()
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = list(grad_nodes)
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, dict):
        grad_req = grad_nodes.copy()
        grad_nodes = list(grad_nodes.keys())
    else:
        raise ValueError
    input_shape = {k: v.shape for k, v in location.items()}
    _, out_shape, _ = sym.infer_shape(**input_shape)
    from . import symbol as _sym
    proj = _sym.Variable("__random_proj")
    out = _sym.make_loss(sym * proj)
    location = dict(list(location.items())
                    + [("__random_proj", nd.array(np.random.rand(*out_shape[0]) + 0.1, ctx=ctx, dtype=dtype))])
    args_grad_npy = dict([(k, np.random.normal(0, 0.01, size=location[k].shape)) for k in grad_nodes]
                         + [("__random_proj", np.random.normal(0, 0.01, size=out_shape[0]))])
    args_grad = {k: nd.array(v, ctx=ctx, dtype=dtype) for k, v in args_grad_npy.items()}
    executor = out.bind(ctx, grad_req=grad_req, args=location, args_grad=args_grad, aux_states=aux)
    inps = executor.arg_arrays
    if len(inps) != len(location):
        raise ValueError("Executor arg_arrays and and location len do not match."
                         f"Got {len(inps)} inputs and {len(location)} locations")
    assert len(executor.outputs) == 1
    executor.forward(is_train=True)
    eps = get_tolerance(executor.outputs[0], numeric_eps, default_numeric_eps())
    if dtype in (np.float32, np.float16):
        assert eps >= 1e-5  # finite differences with a smaller step need more precision
    executor.backward()
    symbolic_grads = executor.grad_dict
    numeric_gradients = numeric_grad(executor, location_npy, aux_states_npy, eps=eps,
                                     use_forward_train=use_forward_train, dtype=dtype)
    for name in grad_nodes:
        fd_grad = numeric_gradients[name]
        orig_grad = args_grad_npy[name]
        sym_grad = symbolic_grads[name]
        names = (f"NUMERICAL_{name}", f"BACKWARD_{name}")
        if grad_req[name] == "write":
            assert_almost_equal(fd_grad, sym_grad, rtol, atol, names)
        elif grad_req[name] == "add":
            assert_almost_equal(fd_grad, _numpy(sym_grad) - orig_grad, rtol, atol, names)
        elif grad_req[name] == "null":
            assert_almost_equal(orig_grad, sym_grad, rtol, atol, names)
        else:
            raise ValueError(f"Invalid grad_req {grad_req[name]} for argument {name}")


def check_symbolic_backward(sym: Symbol, location: Any, out_grads: Any, expected: Any, rtol: Any = None,
                            atol: Any = None, aux_states: Any = None, grad_req: Any = "write",
                            ctx: Context | None = None, grad_stypes: Any = None, equal_nan: bool = False,
                            dtype: Any = np.float32) -> dict:
    """Binds ``sym`` at ``location``, runs forward (training) and backward with ``out_grads`` and
    compares each argument's gradient with ``expected`` (list in argument order, or dict); 'add'
    checks the increment over a random initial buffer, 'null' that the buffer is untouched. Returns
    the gradient buffers."""
    assert dtype == "asnumpy" or dtype in (np.float16, np.float32, np.float64)
    ctx = ctx or default_context()
    location = _parse_location(sym=sym, location=location, ctx=ctx, dtype=dtype)
    aux = _parse_aux_states(sym=sym, aux_states=aux_states, ctx=ctx, dtype=dtype)
    if isinstance(expected, (list, tuple)):
        expected = dict(zip(sym.list_arguments(), expected))
    # the gradient buffers start dirty, deterministically (as MXNet's)
    args_grad_npy = {k: np.random.normal(size=v.shape) for k, v in _sorted_items(expected)}
    args_grad_data = {k: nd.array(v, ctx=ctx, dtype=expected[k].dtype if dtype == "asnumpy" else dtype)
                      for k, v in args_grad_npy.items()}
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in sym.list_arguments()}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = dict(zip(sym.list_arguments(), grad_req))
    executor = sym.bind(ctx=ctx, args=location, args_grad=args_grad_data, aux_states=aux, grad_req=grad_req)
    executor.forward(is_train=True)

    def as_nd(v: Any) -> Any:
        return nd.array(v, ctx=ctx, dtype=v.dtype if dtype == "asnumpy" else dtype) if isinstance(v, np.ndarray) else v
    if isinstance(out_grads, (tuple, list)):
        out_grads = [as_nd(a) for a in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = {k: as_nd(v) for k, v in out_grads.items()}
    else:
        assert out_grads is None
    executor.backward(out_grads)
    grads = args_grad_data
    for name in expected:
        names = (f"EXPECTED_{name}", f"BACKWARD_{name}")
        if grad_req[name] == "write":
            assert_almost_equal(expected[name], grads[name], rtol, atol, names, equal_nan=equal_nan)
        elif grad_req[name] == "add":
            assert_almost_equal(expected[name], _numpy(grads[name]) - args_grad_npy[name], rtol, atol, names,
                                equal_nan=equal_nan)
        elif grad_req[name] == "null":
            assert_almost_equal(args_grad_npy[name], grads[name], rtol, atol, names, equal_nan=equal_nan)
        else:
            raise ValueError(f"Invalid grad_req {grad_req[name]} for argument {name}")
    return args_grad_data


def check_consistency(sym: Any, ctx_list: list, scale: float = 1.0, grad_req: Any = "write",
                      arg_params: dict | None = None, aux_params: dict | None = None, rtol: Any = None,
                      atol: Any = None, raise_on_err: bool = True, ground_truth: Any = None,
                      equal_nan: bool = False, use_uniform: bool = False, rand_type: Any = np.float64) -> dict:
    """Runs ``sym`` (or one symbol per context) under every ``ctx_list`` entry (a dict with ``ctx``,
    input shapes and ``type_dict``) from the same random inputs, as MXNet 1.9.1's: the forward outputs
    (inference mode) agree with the most precise run's, then, unless ``grad_req`` is 'null', a training
    forward and a backward from the first run's outputs (cast to the least precise dtype) give outputs
    and input gradients that agree too. Returns the ground truth (outputs and gradients by name)."""
    assert len(ctx_list) > 1
    syms = sym if isinstance(sym, list) else [sym] * len(ctx_list)
    assert len(syms) == len(ctx_list)
    output_names = syms[0].list_outputs()
    arg_names = syms[0].list_arguments()
    exe_list = []
    for s, spec in zip(syms, ctx_list):
        assert s.list_arguments() == arg_names and s.list_outputs() == output_names
        exe_list.append(s.simple_bind(grad_req=grad_req, **dict(spec)))
    arg_params = {} if arg_params is None else arg_params
    aux_params = {} if aux_params is None else aux_params

    def smaller_dtype(dt1: Any, dt2: Any) -> Any:  # the least precise of two dtypes
        return dt1 if dt2 is None or np.dtype(dt1).itemsize < np.dtype(dt2).itemsize else dt2

    for n, arr in _sorted_items(exe_list[0].arg_dict):  # a deterministic order, for reproducibility
        if n not in arg_params:
            arg_params[n] = (np.random.uniform(low=-0.92 * scale, high=0.92 * scale, size=arr.shape) if use_uniform
                             else np.random.normal(size=arr.shape, scale=scale)).astype(rand_type)
    for n in exe_list[0].aux_dict:
        aux_params.setdefault(n, 0)
    for exe in exe_list:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
        if grad_req == "add":
            for arr in exe.grad_arrays:
                if arr is not None:
                    arr[:] = 0
    dtypes = [np.dtype(exe.outputs[0].dtype) for exe in exe_list]
    gt_idx = int(np.argmax([d.itemsize if d.kind == "f" else 0 for d in dtypes]))
    for exe in exe_list:
        exe.forward(is_train=False)
    gt = ground_truth
    if gt is None:
        gt = dict(exe_list[gt_idx].output_dict)
        if grad_req != "null":
            gt.update(exe_list[gt_idx].grad_dict)
    for i, exe in enumerate(exe_list):
        if i == gt_idx:
            continue
        for name, arr in zip(output_names, exe.outputs):
            try:
                assert_almost_equal(arr, gt[name], rtol=rtol, atol=atol, equal_nan=equal_nan)
            except AssertionError:
                if raise_on_err:
                    raise
    if grad_req != "null":
        for exe in exe_list:
            exe.forward(is_train=True)
        least = [out.dtype for out in exe_list[0].outputs]
        for exe in exe_list:
            least = [smaller_dtype(out.dtype, dt) for out, dt in zip(exe.outputs, least)]
        golden = [out.asnumpy().astype(dt) for out, dt in zip(exe_list[0].outputs, least)]
        for exe in exe_list:
            exe.backward([nd.array(g, dtype=out.dtype) for g, out in zip(golden, exe.outputs)])
        if ground_truth is None:  # MXNet's dict holds the run's own arrays: now its training outputs and gradients
            gt.update(exe_list[gt_idx].output_dict)
            gt.update(exe_list[gt_idx].grad_dict)
        for i, exe in enumerate(exe_list):
            if i == gt_idx:
                continue
            for name, arr in zip(output_names + arg_names, list(exe.outputs) + list(exe.grad_arrays)):
                if gt.get(name) is None:
                    assert arr is None
                    continue
                gtarr = gt[name]
                rt, at = rtol, atol
                smaller_arr = smaller_dtype(arr.dtype, dtypes[i])
                smaller_gt = smaller_dtype(gtarr.dtype, dtypes[gt_idx])
                if smaller_arr != arr.dtype or smaller_gt != gtarr.dtype:
                    rt, at = get_tols(arr.astype(smaller_arr), gtarr.astype(smaller_gt), rtol, atol)
                try:
                    assert_almost_equal(arr, gtarr, rtol=rt, atol=at, equal_nan=equal_nan)
                except AssertionError:
                    if raise_on_err:
                        raise
    return gt


# -- environment -----------------------------------------------------------------------------------
def retry(n: int) -> Callable:
    """Runs a stochastic test up to ``n`` times; fails only if every run fails."""
    assert n > 0

    def decorate(f: Callable) -> Callable:
        def wrapper(*args: Any, **kwargs: Any) -> None:
            for i in range(n):
                try:
                    f(*args, **kwargs)
                    return
                except AssertionError:
                    if i == n - 1:
                        raise
        return wrapper
    return decorate


@contextmanager
def discard_stderr():
    """Silences file descriptor 2 inside the block (C-level output included)."""
    with open(os.devnull, "w") as bit_bucket:
        try:
            fileno = sys.stderr.fileno()
        except (AttributeError, ValueError, OSError):  # not a real file (captured)
            yield
            return
        old = os.dup(fileno)
        try:
            os.dup2(bit_bucket.fileno(), fileno)
            yield
        finally:
            os.dup2(old, fileno)
            os.close(old)


@contextmanager
def environment(*args: Any):
    """Sets environment variables for the block, restoring them after (even on error).

    ``environment('NAME', 'value')`` or ``environment({'A': '1', 'B': None})`` (None unsets)."""
    if len(args) == 1 and isinstance(args[0], dict):
        env_vars = args[0]
    else:
        assert len(args) == 2, "Expecting one dict arg or two args: env var name and value"
        env_vars = {args[0]: args[1]}
    snapshot = {k: os.environ.get(k) for k in env_vars}

    def apply(d: dict) -> None:
        for k, v in d.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    apply(env_vars)
    try:
        yield
    finally:
        apply(snapshot)


def list_gpus() -> range:
    """No GPUs here."""
    return range(0)


def download(url: str, fname: str | None = None, dirname: str | None = None, overwrite: bool = False,
             retries: int = 5) -> str:
    """MXNet's ``test_utils.download`` without the network: the file's local path (``fname``, or the
    URL's last part, under ``dirname``) when it is already there and ``overwrite`` is false, as
    MXNet skips a download then; otherwise one line naming the file expected."""
    from .base import DatasetFileNotFoundError

    assert retries >= 0, "Number of retries should be at least 0"
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    if not overwrite and os.path.exists(fname):
        return fname
    raise DatasetFileNotFoundError(fname, f"cannot download {url}: the runtime never downloads "
                                          "(place a copy of the file there)")


def get_mnist() -> dict:
    """MNIST as MXNet's ``test_utils.get_mnist``: the four gzip'd idx files (in the working
    directory, where ``download`` puts them), images ``(n, 1, 28, 28)`` float32 in [0, 1]."""
    import gzip
    import struct

    def read_data(label_url: str, image_url: str) -> tuple:
        with gzip.open(download(label_url)) as flbl:
            struct.unpack(">II", flbl.read(8))
            label = np.frombuffer(flbl.read(), dtype=np.int8)
        with gzip.open(download(image_url), "rb") as fimg:
            _, _, rows, cols = struct.unpack(">IIII", fimg.read(16))
            image = np.frombuffer(fimg.read(), dtype=np.uint8).reshape(len(label), rows, cols)
            image = image.reshape(image.shape[0], 1, 28, 28).astype(np.float32) / 255
        return label, image

    path = "http://data.mxnet.io/data/mnist/"
    train_lbl, train_img = read_data(path + "train-labels-idx1-ubyte.gz", path + "train-images-idx3-ubyte.gz")
    test_lbl, test_img = read_data(path + "t10k-labels-idx1-ubyte.gz", path + "t10k-images-idx3-ubyte.gz")
    return {"train_data": train_img, "train_label": train_lbl, "test_data": test_img, "test_label": test_lbl}


def get_mnist_pkl() -> None:
    """``data/mnist.pkl.gz`` (MXNet's ``get_mnist_pkl``): present, or one line naming it."""
    os.makedirs("data", exist_ok=True)
    if not os.path.exists("data/mnist.pkl.gz"):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def _extract_zip(path: str, where: str) -> None:
    import zipfile

    with zipfile.ZipFile(path) as zf:
        zf.extractall(where)


def get_mnist_ubyte() -> None:
    """MXNet's ``get_mnist_ubyte``: the four idx files in ``data/``, extracted from ``data/mnist.zip``
    (data.mxnet.io's archive) when missing; that archive must be there (nothing is downloaded)."""
    os.makedirs("data", exist_ok=True)
    files = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]
    if not all(os.path.exists(os.path.join("data", f)) for f in files):
        _extract_zip(download("http://data.mxnet.io/mxnet/data/mnist.zip", dirname="data"), "data")


def get_cifar10() -> None:
    """MXNet's ``get_cifar10``: ``data/cifar/{train,test}.{rec,lst}``, extracted from
    ``data/cifar10.zip`` (data.mxnet.io's archive) when missing."""
    os.makedirs("data", exist_ok=True)
    files = ["train.rec", "test.rec", "train.lst", "test.lst"]
    if not all(os.path.exists(os.path.join("data", "cifar", f)) for f in files):
        _extract_zip(download("http://data.mxnet.io/mxnet/data/cifar10.zip", dirname="data"), "data")


def get_mnist_iterator(batch_size: int, input_shape: tuple, num_parts: int = 1, part_index: int = 0) -> tuple:
    """MXNet's ``get_mnist_iterator``: (train, validation) ``MNISTIter`` over ``data/``'s idx files."""
    from .io import MNISTIter

    get_mnist_ubyte()
    flat = len(input_shape) != 3
    train = MNISTIter(image="data/train-images-idx3-ubyte", label="data/train-labels-idx1-ubyte",
                      input_shape=input_shape, batch_size=batch_size, shuffle=True, flat=flat,
                      num_parts=num_parts, part_index=part_index)
    val = MNISTIter(image="data/t10k-images-idx3-ubyte", label="data/t10k-labels-idx1-ubyte",
                    input_shape=input_shape, batch_size=batch_size, flat=flat, num_parts=num_parts,
                    part_index=part_index)
    return train, val


def get_zip_data(data_dir: str, url: str, data_origin_name: str) -> None:
    """MXNet's ``get_zip_data``: extracts ``data_dir/data_origin_name`` once it is there."""
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_origin_name):
        download(url, dirname=data_dir, overwrite=False)
        _extract_zip(data_origin_name, data_dir)


def get_bz2_data(data_dir: str, data_name: str, url: str, data_origin_name: str) -> None:
    """MXNet's ``get_bz2_data``: ``data_dir/data_name`` decompressed from ``data_origin_name``."""
    import bz2
    import shutil

    data_name = os.path.join(data_dir, data_name)
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_name):
        download(url, fname=data_origin_name, dirname=data_dir, overwrite=False)
        with bz2.BZ2File(data_origin_name, "rb") as zipfile, open(data_name, "wb") as output:
            shutil.copyfileobj(zipfile, output)
        os.remove(data_origin_name)


def is_cd_run() -> bool:
    return os.environ.get("CD_JOB", 0) == "1"


def is_op_runnable() -> bool:
    """Every registered op runs on this (CPU) context."""
    return True


def has_tvm_ops() -> bool:
    return False


# -- matrices for the linalg tests ---------------------------------------------------------------------
def new_matrix_with_real_eigvals_2d(n: int) -> np.ndarray:
    """A random n x n matrix with real eigenvalues (similar to a diagonal one)."""
    shape = (n, n)
    q = np.ones(shape)
    while np.abs(np.linalg.det(q)) < 1e-2:
        q = np.random.uniform(-1.0, 1.0, size=shape)
    return np.dot(np.dot(q, np.diag(np.random.uniform(-1.0, 1.0, n))), np.linalg.inv(q))


def new_matrix_with_real_eigvals_nd(shape: tuple) -> np.ndarray:
    n = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(n)]).reshape(shape)


def new_orthonormal_matrix_2d(n: int) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.uniform(-1.0, 1.0, (n, n)))
    return q


def new_sym_matrix_with_real_eigvals_2d(n: int) -> np.ndarray:
    q = new_orthonormal_matrix_2d(n)
    return np.dot(np.dot(q, np.diag(np.random.uniform(-1.0, 1.0, n))), q.T)


def new_sym_matrix_with_real_eigvals_nd(shape: tuple) -> np.ndarray:
    n = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_sym_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(n)]).reshape(shape)


# -- MXNet 1.9.1 helpers of its numpy-interface tests (same code) ------------------------------------


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """Generate the buckets and probabilities for chi_square test when the ppf (Quantile function)
     is specified.

    Parameters
    ----------
    ppf : function
        The Quantile function that takes a probability and maps it back to a value.
        It's the inverse of the cdf function
    nbuckets : int
        size of the buckets

    Returns
    -------
    buckets : list of tuple
        The generated buckets
    probs : list
        The generate probabilities
    """
    assert nbuckets > 0
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets))) for i in range(nbuckets)]
    return buckets, probs


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Run the chi-square test for the generator. The generator can be both continuous and discrete.

    If the generator is continuous, the buckets should contain tuples of (range_min, range_max) \
    and the probs should be the corresponding ideal probability within the specific ranges. \
    Otherwise, the buckets should contain all the possible values generated over the discrete distribution and the \
    probs should be groud-truth probability.

    Usually the user is required to specify the probs parameter.

    After obtaining the p value, we could further use the standard p > 0.05 (alpha) threshold to get \
    the final result.

    Examples::

      buckets, probs = gen_buckets_probs_with_ppf(lambda x: ss.norm.ppf(x, 0, 1), 5)
      generator = lambda x: np.random.normal(0, 1.0, size=x)
      p = chi_square_check(generator=generator, buckets=buckets, probs=probs)
      assert(p > 0.05)

    Parameters
    ----------
    generator: function
        A function that is assumed to generate i.i.d samples from a specific distribution.
        generator(N) should generate N random samples.
    buckets: list of tuple or list of number
        The buckets to run the chi-square the test. Make sure that the buckets cover
        the whole range of the distribution. Also, the buckets must be in ascending order and have
        no intersection
    probs: list or tuple
        The ground-truth probability of the random value fall in a specific bucket.
    nsamples:int
        The number of samples to generate for the testing

    Returns
    -------
    p : float
        p value that the generator has the expected distribution.
        A higher value indicates a larger confidence
    obs_freq : list
        Observed frequency of buckets
    expected_freq : list
        The expected (ground-truth) frequency of the buckets
    """
    try:
        import scipy.stats as ss
    except ImportError:
        ss = None
    if not ss:
        raise ImportError("scipy is not available."
                          " Please check if the scipy python bindings are installed.")
    assert isinstance(buckets, list)
    samples = generator(nsamples)
    assert len(probs) == len(buckets)
    if isinstance(buckets[0], (list, tuple)):
        # Check whether the buckets are valid and fill them into a npy array
        continuous_dist = True
        buckets_npy = np.zeros((len(buckets) * 2, ), dtype=np.float32)
        for i, _ in enumerate(buckets):
            assert(buckets[i][0] <= buckets[i][1])
            if i < len(buckets) - 1:
                assert(buckets[i][1] <= buckets[i + 1][0])
            buckets_npy[i * 2] = buckets[i][0]
            buckets_npy[i * 2 + 1] = buckets[i][1]
    else:
        continuous_dist = False
    expected_freq = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    if continuous_dist:
        sample_bucket_ids = np.searchsorted(buckets_npy, samples, side='right')
    else:
        sample_bucket_ids = np.array(samples)
    if continuous_dist:
        sample_bucket_ids = sample_bucket_ids // 2
    obs_freq = np.zeros(shape=len(buckets), dtype=np.int64)
    for i, _ in enumerate(buckets):
        if continuous_dist:
            obs_freq[i] = (sample_bucket_ids == i).sum()
        else:
            obs_freq[i] = (sample_bucket_ids == buckets[i]).sum()
    _, p = ss.chisquare(f_obs=obs_freq, f_exp=expected_freq)
    return p, obs_freq, expected_freq


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Verify whether the generator is correct using chi-square testing.

    The test is repeated for "nrepeat" times and we check if the success rate is
     above the threshold (25% by default).

    Parameters
    ----------
    generator: function
        A function that is assumed to generate i.i.d samples from a specific distribution.
            generator(N) should generate N random samples.
    buckets: list of tuple or list of number
        The buckets to run the chi-square the test. Make sure that the buckets cover
         the whole range of the distribution. Also, the buckets must be in ascending order and
         have no intersection
    probs: list or tuple
        The ground-truth probability of the random value fall in a specific bucket.
    nsamples: int
        The number of samples to generate for the testing
    nrepeat: int
        The times to repeat the test
    success_rate: float
        The desired success rate
    alpha: float
        The desired threshold for type-I error i.e. when a true null hypothesis is rejected

    Returns
    -------
    cs_ret_l: list
        The p values of the chi-square test.
    """
    cs_ret_l = []
    obs_freq_l = []
    expected_freq_l = []
    for _ in range(nrepeat):
        cs_ret, obs_freq, expected_freq = chi_square_check(generator=generator, buckets=buckets,
                                                           probs=probs, nsamples=nsamples)
        cs_ret_l.append(cs_ret)
        obs_freq_l.append(obs_freq)
        expected_freq_l.append(expected_freq)
    success_num = (np.array(cs_ret_l) > alpha).sum()
    if success_num < nrepeat * success_rate:
        raise AssertionError("Generator test fails, Chi-square p=%s, obs_freq=%s, expected_freq=%s."
                             "\nbuckets=%s, probs=%s"
                             % (str(cs_ret_l), str(obs_freq_l), str(expected_freq_l),
                                str(buckets), str(probs)))
    return cs_ret_l


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True,
                                      rtol=1E-4, atol=1E-4):
    """Check whether a HybridBlock has consistent output between the hybridized
     v.s. non-hybridized versions

    The network should not contain any random number generators.

    Parameters
    ----------
    net_builder : function
        The builder of the HybridBlock that we are going to check the consistency.
        Inside the implementation, we will call net_builder() to construct the hybrid block.
        Also, the net_builder will need to support specifying the params
    data_l : list of mx.np.ndarray
        List of input ndarrays.
    numpy_func : function, optional
        The ground truth numpy function that has the same functionality as net_builder().
        Default None.
    test_grad : bool, optional
        Whether to test the consistency of the gradient. Default True.
    rtol : float, optional
        The relative error tolerance, default 1E-4. Default 1E-4.
    atol : float, optional
        The absolute error tolerance, default 1E-4. Default 1E-4.
    """
    import hybridize.runtime as mx

    class _NumpyParamDictInit(mx.init.Initializer):
        """Initializes parameters with the cached numpy ndarrays dictionary
        """
        def __init__(self, np_params):
            super(_NumpyParamDictInit, self).__init__()
            self._np_params = np_params

        def _init_weight(self, name, arr):
            arr[()] = self._np_params[name]
    saved_out_np = None
    saved_grad_np_l = None
    params_init = None
    use_autograd_flags = [False, True] if test_grad else [False]
    for hybridize in [False, True]:
        for use_autograd in use_autograd_flags:
            net = net_builder(prefix='net_')
            if params_init is None:
                net.initialize()
            else:
                net.initialize(params_init)
            if hybridize:
                net.hybridize()
            in_data_l = [ele.copy() for ele in data_l]
            if use_autograd:
                for ele in in_data_l:
                    ele.attach_grad()
                with mx.autograd.record():
                    out = net(*in_data_l)
                out.backward(out)
            else:
                out = net(*in_data_l)
            if params_init is None:
                np_params = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
                params_init = _NumpyParamDictInit(np_params)
            if saved_out_np is None:
                saved_out_np = out.asnumpy()
            else:
                # Check for correctness
                assert_almost_equal(out.asnumpy(), saved_out_np, rtol=rtol, atol=atol)
            if use_autograd:
                if saved_grad_np_l is None:
                    saved_grad_np_l = [ele.grad.asnumpy() for ele in in_data_l]
                else:
                    # Check for correctness
                    for data, saved_grad_np in zip(in_data_l, saved_grad_np_l):
                        assert_almost_equal(data.grad.asnumpy(), saved_grad_np,
                                            rtol=rtol, atol=atol)
    if numpy_func is not None:
        numpy_out = numpy_func(*[ele.asnumpy() for ele in data_l])
        assert_almost_equal(saved_out_np, numpy_out, rtol=rtol, atol=atol)


def _dummy_iter_base() -> type:
    from .io.io import DataIter
    return DataIter


class DummyIter(_dummy_iter_base()):
    """An iterator that returns the first batch of ``real_iter`` forever (MXNet's speed-test helper):
    its ``provide_data``/``provide_label``/``batch_size`` are the real iterator's; it never stops."""

    def __init__(self, real_iter: Any) -> None:
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self) -> "DummyIter":
        return self

    def next(self) -> Any:
        return self.the_batch
