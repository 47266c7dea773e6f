"""Calls whose outcome (value or exception) MXNet 1.9.1 decides, written once for both sides:
``make_interop_cases.py`` runs them with real MXNet and records the outcome, the tests run them with
``hybridize.runtime`` and compare. Each function takes the ``mxnet``-like module (and its ``nd``,
``numpy``) and returns ``{name: zero-argument callable}``.
"""
from __future__ import annotations

from typing import Any, Callable

Calls = dict  # str -> Callable[[], Any]


def numpy_attr_calls(mx: Any, nd: Any, np: Any) -> Calls:
    """numpy values as operator attributes. MXNet's frontend passes ``str(value)``: numpy scalars and
    0-d arrays work, a 1-d array (``"[2 3]"``, no commas) is refused, except where a Python-level
    method converts it first (``NDArray.broadcast_to`` takes ``tuple(shape)``)."""
    return {
        "broadcast_to_method_np_shape": lambda: nd.ones((1, 3)).broadcast_to(shape=np.array([2, 3])),
        "broadcast_to_method_list": lambda: nd.ones((1, 3)).broadcast_to([2, 3]),
        "broadcast_to_method_prepend": lambda: nd.ones((3,)).broadcast_to((2, 3)),
        "broadcast_to_method_bad": lambda: nd.ones((2, 3)).broadcast_to((4, 3)),
        "broadcast_to_method_shorter": lambda: nd.ones((2, 3)).broadcast_to((3,)),
        "broadcast_to_fn_np_shape": lambda: nd.broadcast_to(nd.ones((1, 3)), shape=np.array([2, 3])),
        "broadcast_to_fn_np_one": lambda: nd.broadcast_to(nd.ones((1,)), shape=np.array([4])),
        "sym_broadcast_to_np_shape": lambda: mx.sym.broadcast_to(mx.sym.var("x"), shape=np.array([2, 3])).tojson(),
        "reshape_fn_np_shape": lambda: nd.reshape(nd.arange(6), shape=np.array([3, 2])),
        "zeros_np_dtype": lambda: nd.zeros((2,), dtype=np.float64),
        "zeros_np_shape_ints": lambda: nd.zeros((np.int64(2), np.int32(3))),
        "cast_np_dtype": lambda: nd.Cast(nd.ones((2,)), dtype=np.int32),
        "astype_np_dtype": lambda: nd.ones((2,)).astype(np.float16),
        "sum_np_int_axis": lambda: nd.sum(nd.ones((2, 3)), axis=np.int64(1)),
        "sum_np_0d_axis": lambda: nd.sum(nd.ones((2, 3)), axis=np.array(1)),
        "clip_np_float": lambda: nd.clip(nd.arange(5), np.float32(1.0), np.float64(3.0)),
        "one_hot_np_depth": lambda: nd.one_hot(nd.array([0, 2]), depth=np.int32(3)),
        "transpose_np_axes": lambda: nd.transpose(nd.ones((2, 3, 4)), axes=np.array([2, 0, 1])),
        "slice_axis_np": lambda: nd.slice_axis(nd.arange(10), axis=np.int64(0), begin=np.int64(2), end=np.int32(5)),
        "scalar_np_float": lambda: nd.arange(3) + np.float32(0.5),
        "full_np_value": lambda: nd.full((2,), np.float64(2.5)),
    }


def error_calls(mx: Any, nd: Any, np: Any) -> Calls:
    """Calls where MXNet raises (or, at the edges, does not): zero-size arrays, diag, moveaxis,
    space_to_depth, Pooling's 'same' convention, LayerNorm widths and common shape checks."""
    c: Calls = {}
    # zero-size arrays: in MXNet's legacy shape semantics (the default) a 0 in a shape means
    # "unknown", so the creation operators fail shape inference (nd.empty/full/array do not use one)
    c["create_zeros_5x0"] = lambda: nd.zeros((5, 0))
    c["create_ones_0"] = lambda: nd.ones((0,))
    c["create_full_0x3"] = lambda: nd.full((0, 3), 2.0)
    c["create_empty_0"] = lambda: nd.empty((0,))
    c["create_array_from_numpy_5x0"] = lambda: nd.array(np.zeros((5, 0)))
    c["create_arange_empty"] = lambda: nd.arange(3, 3)
    c["slice_to_empty"] = lambda: nd.ones((3,))[1:1]
    c["slice_axis_to_empty"] = lambda: nd.slice_axis(nd.ones((3,)), axis=0, begin=1, end=1)
    c["random_uniform_0"] = lambda: nd.random.uniform(shape=(0, 2))

    # ... and under np_shape semantics a zero-size reduction with no identity fails (min, max,
    # argmax/argmin over the empty axis), one with an identity does not
    def np_shape(fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            with mx.np_shape(True):
                out = fn()
                return out.asnumpy() if hasattr(out, "asnumpy") else out
        return run

    for red in ["min", "max", "argmax", "argmin"]:
        c[f"np_shape_zero_size_{red}"] = np_shape(lambda r=red: getattr(nd, r)(nd.zeros((5, 0))))
        c[f"np_shape_zero_size_{red}_axis1"] = np_shape(lambda r=red: getattr(nd, r)(nd.zeros((5, 0)), axis=1))
        c[f"np_shape_zero_size_{red}_axis0"] = np_shape(lambda r=red: getattr(nd, r)(nd.zeros((5, 0)), axis=0))
    for red in ["sum", "mean", "prod", "nansum", "nanprod"]:
        c[f"np_shape_zero_size_{red}"] = np_shape(lambda r=red: getattr(nd, r)(nd.zeros((5, 0))))
    c["np_shape_zero_size_max_method"] = np_shape(lambda: nd.zeros((5, 0)).max())
    # zero-size arrays made without a creation operator, reduced in the default semantics
    for red in ["min", "max", "argmax", "argmin", "sum", "mean", "prod", "norm"]:
        c[f"zero_size_{red}"] = lambda r=red: getattr(nd, r)(nd.array(np.zeros((5, 0))))
        c[f"zero_size_{red}_axis1"] = lambda r=red: getattr(nd, r)(nd.array(np.zeros((5, 0))), axis=1)
        c[f"zero_size_{red}_axis0"] = lambda r=red: getattr(nd, r)(nd.array(np.zeros((5, 0))), axis=0)
    c["zero_size_max_method"] = lambda: nd.empty((5, 0)).max()
    c["zero_size_topk"] = lambda: nd.topk(nd.array(np.zeros((5, 0))), k=1)
    c["zero_size_softmax"] = lambda: nd.softmax(nd.array(np.zeros((5, 0))))

    m33 = lambda: nd.arange(9).reshape((3, 3))  # noqa: E731
    for k in [-4, -3, -2, 2, 3, 5]:
        c[f"diag_k{k}"] = lambda k=k: nd.diag(m33(), k=k)
    c["diag_1d_k3"] = lambda: nd.diag(nd.array([1, 2]), k=3)
    c["diag_3d_axes"] = lambda: nd.diag(nd.ones((2, 3, 4)), k=0, axis1=0, axis2=3)
    c["diag_3d_same_axes"] = lambda: nd.diag(nd.ones((2, 3, 4)), k=0, axis1=1, axis2=1)
    c["diag_3d_k_out_of_range"] = lambda: nd.diag(nd.ones((2, 3, 4)), k=4, axis1=1, axis2=2)

    def moveaxis(src: Any, dst: Any) -> Callable[[], Any]:
        return lambda: nd.moveaxis(nd.ones((1, 2, 3)), src, dst)
    for label, (src, dst) in {"src3": (3, 0), "src-4": (-4, 0), "dst5": (0, 5), "repeat_src": ([0, 0], [0, 1]),
                              "repeat_dst": ([0, 1], [1, 1]), "len_mismatch": (0, [0, 1]),
                              "len_mismatch2": ([0, 1], [0]), "ok_negative": (-1, 0), "ok_lists": ([0, 2], [2, 0])}.items():
        c[f"moveaxis_{label}"] = moveaxis(src, dst)

    x4 = lambda: nd.ones((1, 4, 4, 4))  # noqa: E731
    c["space_to_depth_block0"] = lambda: nd.space_to_depth(x4(), block_size=0)
    c["depth_to_space_block0"] = lambda: nd.depth_to_space(x4(), block_size=0)
    c["space_to_depth_block3"] = lambda: nd.space_to_depth(x4(), block_size=3)
    c["depth_to_space_block3"] = lambda: nd.depth_to_space(x4(), block_size=3)
    c["space_to_depth_3d"] = lambda: nd.space_to_depth(nd.ones((4, 4, 4)), block_size=2)
    c["space_to_depth_ok"] = lambda: nd.space_to_depth(nd.arange(16).reshape((1, 1, 4, 4)), block_size=2)

    x1 = lambda: nd.array(np.arange(10, dtype=np.float32).reshape(1, 1, 10))  # noqa: E731
    c["pool_same_pad2"] = lambda: nd.Pooling(x1(), kernel=2, stride=2, pad=2, pool_type="max", pooling_convention="same")
    c["pool_same_pad000"] = lambda: nd.Pooling(x1(), kernel=2, stride=2, pad=(0, 0, 0), pool_type="max",
                                               pooling_convention="same")
    c["pool_same_pad001"] = lambda: nd.Pooling(x1(), kernel=2, stride=2, pad=(0, 0, 1), pool_type="max",
                                               pooling_convention="same")
    c["pool_same_2d"] = lambda: nd.Pooling(nd.ones((1, 1, 4, 4)), kernel=(2, 2), pool_type="max", pooling_convention="same")
    c["pool_same_default_pad"] = lambda: nd.Pooling(x1(), kernel=3, stride=2, pool_type="avg", pooling_convention="same")
    c["pool_kernel_too_big"] = lambda: nd.Pooling(x1(), kernel=11, pool_type="max")
    c["pool_2d_pad_longer"] = lambda: nd.Pooling(nd.ones((1, 1, 4, 4)), kernel=(2, 2), pad=(1, 1, 1), pool_type="max")

    d = lambda: nd.ones((2, 5))  # noqa: E731
    c["layernorm_gamma_width"] = lambda: nd.LayerNorm(d(), nd.ones((4,)), nd.ones((5,)))
    c["layernorm_beta_width"] = lambda: nd.LayerNorm(d(), nd.ones((5,)), nd.ones((4,)))
    c["layernorm_axis0_width"] = lambda: nd.LayerNorm(d(), nd.ones((5,)), nd.ones((5,)), axis=0)
    c["layernorm_ok"] = lambda: nd.LayerNorm(d(), nd.ones((5,)), nd.zeros((5,)))
    c["layernorm_axis_out_of_range"] = lambda: nd.LayerNorm(d(), nd.ones((5,)), nd.ones((5,)), axis=2)

    c["reshape_bad_size"] = lambda: nd.ones((2, 3)).reshape((4, 2))
    c["dot_mismatch"] = lambda: nd.dot(nd.ones((4, 2)), nd.ones((1, 4)))
    c["broadcast_add_mismatch"] = lambda: nd.broadcast_add(nd.ones((2, 3)), nd.ones((4, 3)))
    c["concat_mismatch"] = lambda: nd.concat(nd.ones((2, 3)), nd.ones((2, 4)), dim=0)
    c["transpose_bad_axes"] = lambda: nd.transpose(nd.ones((2, 3)), axes=(0, 0))
    c["take_bad_mode"] = lambda: nd.take(nd.ones((2, 3)), nd.array([0]), mode="nope")
    c["activation_bad_type"] = lambda: nd.Activation(nd.ones((2,)), act_type="mish")
    c["fc_bad_weight"] = lambda: nd.FullyConnected(nd.ones((2, 3)), nd.ones((4, 5)), nd.ones((4,)), num_hidden=4)
    c["conv_bad_channels"] = lambda: nd.Convolution(nd.ones((1, 3, 5, 5)), nd.ones((2, 4, 3, 3)), nd.ones((2,)),
                                                    kernel=(3, 3), num_filter=2)
    c["slice_axis_out_of_range"] = lambda: nd.slice_axis(nd.ones((2, 3)), axis=2, begin=0, end=1)
    c["squeeze_not_one"] = lambda: nd.squeeze(nd.ones((2, 3)), axis=0)
    c["expand_dims_out_of_range"] = lambda: nd.expand_dims(nd.ones((2, 3)), axis=4)
    c["one_hot_negative_depth"] = lambda: nd.one_hot(nd.array([0, 1]), depth=-1)
    c["sum_axis_out_of_range"] = lambda: nd.sum(nd.ones((2, 3)), axis=2)
    c["split_uneven"] = lambda: nd.split(nd.ones((2, 3)), num_outputs=2, axis=1)
    c["index_out_of_range"] = lambda: nd.ones((2, 3))[5]
    c["asscalar_many"] = lambda: nd.ones((2,)).asscalar()
    c["unknown_attr_on_paramless_op"] = lambda: nd.relu(nd.ones((2,)), nonsense=3)
    return c


def register_custom_ops(mx: Any, nd: Any) -> None:
    """Custom operators whose forward fails in various ways (a dot product of the two inputs)."""

    class Dot(mx.operator.CustomOp):
        def __init__(self, body: Callable) -> None:
            super().__init__()
            self.body = body

        def forward(self, is_train, req, in_data, out_data, aux):
            self.body(in_data, out_data)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            pass

    def register(name: str, body: Callable) -> None:
        @mx.operator.register(name)
        class Prop(mx.operator.CustomOpProp):
            def __init__(self):
                super().__init__(need_top_grad=True)

            def list_arguments(self):
                return ["a", "b"]

            def infer_shape(self, in_shape):
                return in_shape, [(in_shape[0][0], in_shape[1][1])]

            def create_operator(self, ctx, shapes, dtypes):
                return Dot(body)

    def assert_false(in_data, out_data):
        assert False, "assertion inside forward"

    def raise_value(in_data, out_data):
        raise ValueError("value error inside forward")

    def dot(in_data, out_data):
        out_data[0][:] = nd.dot(in_data[0], in_data[1])

    register("ic_assert", assert_false)
    register("ic_value", raise_value)
    register("ic_dot", dot)


def custom_calls(mx: Any, nd: Any) -> Calls:
    """Errors inside ``CustomOp.forward``: MXNet wraps them in MXNetError, imperatively and in graphs."""
    register_custom_ops(mx, nd)
    a, b = mx.sym.var("a"), mx.sym.var("b")
    return {
        "assert_false": lambda: nd.Custom(nd.zeros((4, 1)), nd.zeros((1, 4)), op_type="ic_assert").asnumpy(),
        "value_error": lambda: nd.Custom(nd.zeros((4, 1)), nd.zeros((1, 4)), op_type="ic_value").asnumpy(),
        "shape_error_inside": lambda: nd.Custom(nd.zeros((4, 2)), nd.zeros((1, 4)), op_type="ic_dot").asnumpy(),
        "ok": lambda: nd.Custom(nd.ones((4, 1)), nd.ones((1, 4)), op_type="ic_dot"),
        "symbolic_assert_false": lambda: mx.sym.Custom(a, b, op_type="ic_assert").eval(
            ctx=mx.cpu(), a=nd.zeros((4, 1)), b=nd.zeros((1, 4)))[0].asnumpy(),
        "symbolic_ok": lambda: mx.sym.Custom(a, b, op_type="ic_dot").eval(
            ctx=mx.cpu(), a=nd.ones((4, 1)), b=nd.ones((1, 4)))[0],
        "unregistered": lambda: nd.Custom(nd.zeros((4, 1)), op_type="ic_nothing_registered"),
    }


# -- the test side ----------------------------------------------------------------------------------
_BUILTIN = {"ValueError": ValueError, "TypeError": TypeError, "IndexError": IndexError, "KeyError": KeyError,
            "AssertionError": AssertionError, "AttributeError": AttributeError, "RuntimeError": RuntimeError,
            "NotImplementedError": NotImplementedError}


def check_outcome(name: str, recorded: dict, fn: Callable[[], Any], mxnet_error: type) -> None:
    """Runs ``fn`` with the runtime and asserts MXNet's recorded outcome: an ``MXNetError`` where
    MXNet raised one, an instance of the same builtin exception type where MXNet raised that, else
    the same value (shape, dtype and numbers)."""
    import numpy as np

    if "error" in recorded:
        expected = mxnet_error if recorded["mxnet_error"] else _BUILTIN[recorded["error"]]
        try:
            out = fn()
        except expected:
            return
        except Exception as err:  # noqa: BLE001 - reported with what MXNet raised
            raise AssertionError(f"{name}: MXNet raises {recorded['error']} ({recorded['message']!r}); "
                                 f"the runtime raised {type(err).__name__}: {err}") from err
        raise AssertionError(f"{name}: MXNet raises {recorded['error']} ({recorded['message']!r}); "
                             f"the runtime returned {out!r}")
    out = fn()
    if hasattr(out, "asnumpy"):
        out = out.asnumpy()
    if "shape" in recorded:
        out = np.asarray(out)
        assert list(out.shape) == recorded["shape"], (name, out.shape, recorded["shape"])
        assert out.dtype.name == recorded["dtype"], (name, out.dtype, recorded["dtype"])
        want = np.array(recorded["value"], dtype=np.float64).reshape(recorded["shape"])
        np.testing.assert_allclose(out.astype(np.float64), want, rtol=1e-6, atol=1e-6, err_msg=name)
    elif isinstance(recorded["value"], str):
        assert isinstance(out, str), (name, out)
    else:
        assert out == recorded["value"], (name, out, recorded["value"])
