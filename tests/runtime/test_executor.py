"""The Executor API (``Symbol.bind`` / ``simple_bind``), as MXNet 1.9.1 documents it (forward only)."""
import numpy as np
import pytest

import hybridize.runtime as mx


def _axb():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    return 2 * a + b


def test_bind_runs_the_documented_example_and_shares_the_callers_arrays():
    a, b = mx.nd.array([1, 2]), mx.nd.array([2, 3])
    exe = _axb().bind(mx.cpu(), {"a": a, "b": b})
    assert exe.forward()[0].asnumpy().tolist() == [4, 7]
    assert exe.arg_dict["a"] is a and exe.arg_arrays == [a, b]
    a[:] = 10  # the executor reads the bound array itself
    assert exe.forward()[0].asnumpy().tolist() == [22, 23]


def test_bind_takes_a_list_in_argument_order_and_checks_it():
    exe = _axb().bind(mx.cpu(), [mx.nd.array([1]), mx.nd.array([1])])
    assert exe.forward()[0].asnumpy().tolist() == [3]
    with pytest.raises(ValueError, match="Length of args"):
        _axb().bind(mx.cpu(), [mx.nd.array([1])])
    with pytest.raises(ValueError, match="key `b` is missing in `args`"):
        _axb().bind(mx.cpu(), {"a": mx.nd.array([1])})
    with pytest.raises(TypeError):
        _axb().bind(mx.cpu(), {"a": np.ones(1), "b": np.ones(1)})


def test_outputs_are_the_same_objects_after_each_forward():
    exe = _axb().bind(mx.cpu(), {"a": mx.nd.ones((2,)), "b": mx.nd.zeros((2,))})
    out = exe.outputs[0]
    assert out.shape == (2,)  # allocated at bind time
    exe.forward(a=mx.nd.array([3, 4]))
    assert out.asnumpy().tolist() == [6, 8] and list(exe.output_dict.values()) == [out]


def test_forward_kwargs_are_checked():
    exe = _axb().bind(mx.cpu(), {"a": mx.nd.ones((2,)), "b": mx.nd.zeros((2,))})
    with pytest.raises(TypeError, match="Unknown argument c"):
        exe.forward(c=mx.nd.ones((2,)))
    with pytest.raises(ValueError, match="Shape not match"):
        exe.forward(a=mx.nd.ones((3,)))
    with pytest.raises(ValueError, match="only accept"):
        exe.forward(a=[1, 2])


def test_simple_bind_allocates_zeros_from_the_input_shape():
    x = mx.sym.var("x")
    y = mx.sym.FullyConnected(x, num_hidden=4, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(5, 4), grad_req="null")
    assert [a.shape for a in exe.arg_arrays] == [(5, 4), (4, 4), (4,)]
    assert exe.grad_arrays == [None, None, None]
    assert exe.forward()[0].asnumpy().tolist() == np.zeros((5, 4)).tolist()
    exe = y.simple_bind(mx.cpu(), x=(5, 4))  # grad_req='write' allocates gradient arrays too
    assert [g.shape for g in exe.grad_arrays] == [(5, 4), (4, 4), (4,)]
    assert set(exe.grad_dict) == {"x", "fc_weight", "fc_bias"}


def test_simple_bind_type_dict_and_incomplete_shapes():
    x = mx.sym.var("x")
    exe = (x * 2).simple_bind(mx.cpu(), x=(2, 2), type_dict={"x": "float64"})
    assert exe.arg_dict["x"].dtype == np.float64 and exe.outputs[0].dtype == np.float64
    with pytest.raises(mx.base.MXNetError, match="x"):
        mx.sym.FullyConnected(x, num_hidden=3).simple_bind(mx.cpu())


def test_aux_states_and_is_train():
    data = mx.sym.var("data")
    bn = mx.sym.BatchNorm(data, name="bn", fix_gamma=False)
    assert bn.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    exe = bn.simple_bind(mx.cpu(), data=(4, 3), grad_req="null")
    assert sorted(exe.aux_dict) == ["bn_moving_mean", "bn_moving_var"]
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    exe.arg_dict["gamma" if "gamma" in exe.arg_dict else "bn_gamma"][:] = 1
    exe.aux_dict["bn_moving_var"][:] = 1
    infer = exe.forward(is_train=False, data=mx.nd.array(x))[0].asnumpy()
    np.testing.assert_allclose(infer, x / np.sqrt(1 + 1e-3), rtol=1e-5)  # moving statistics
    train = exe.forward(is_train=True)[0].asnumpy()
    np.testing.assert_allclose(train.mean(axis=0), 0, atol=1e-5)  # batch statistics
    with pytest.raises(ValueError, match="aux_states"):
        bn.bind(mx.cpu(), {k: v for k, v in exe.arg_dict.items()})


def test_copy_params_from_casts_and_rejects_unknown_names():
    x = mx.sym.var("x")
    y = mx.sym.FullyConnected(x, num_hidden=2, name="fc")
    exe = y.simple_bind(mx.cpu(), x=(1, 3), type_dict={"x": "float64"}, grad_req="null")
    exe.copy_params_from({"fc_weight": mx.nd.ones((2, 3)), "fc_bias": mx.nd.array([1, 2])})
    assert exe.arg_dict["fc_weight"].dtype == np.float64
    assert exe.forward(x=mx.nd.ones((1, 3), dtype="float64"))[0].asnumpy().tolist() == [[4, 5]]
    with pytest.raises(ValueError, match="not in the arguments"):
        exe.copy_params_from({"nope": mx.nd.ones((1,))})
    exe.copy_params_from({"nope": mx.nd.ones((1,))}, allow_extra_params=True)


def test_reshape_shares_memory_and_follows_mxnets_rules():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    exe = (2 * a + b).bind(mx.cpu(), {"a": mx.nd.zeros((2, 1)), "b": mx.nd.ones((2, 1))})
    with pytest.raises(AssertionError, match="allow_up_sizing"):
        exe.reshape(a=(4, 2), b=(4, 2))
    big = exe.reshape(allow_up_sizing=True, a=(4, 2), b=(4, 2))
    assert big.forward()[0].shape == (4, 2)
    small = exe.reshape(a=(1, 1), b=(1, 1))
    small.arg_dict["a"][:] = 5
    assert exe.arg_dict["a"].asnumpy()[0, 0] == 5  # a view of the original memory
    with pytest.raises(AssertionError, match="partial_shaping"):
        exe.reshape(a=(1, 1))
    assert exe.reshape(partial_shaping=True, a=(1, 1)).forward()[0].shape == (1, 1)


def test_monitor_callback_sees_every_op_output_and_with_monitor_all_its_inputs():
    x = mx.sym.var("x")
    y = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=2, name="fc"), name="act")
    exe = y.simple_bind(mx.cpu(), x=(1, 3), grad_req="null")
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append((name, arr.shape)))
    exe.forward()
    assert seen == [("fc_output", (1, 2)), ("act_output", (1, 2))]
    seen.clear()
    exe.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    exe.forward()
    # relu has no FListInputNames in MXNet 1.9.1: its input is reported as act_input0
    assert seen == ["x", "fc_data", "fc_weight", "fc_weight", "fc_bias", "fc_bias", "fc_output",
                    "act_input0", "act_output"]


def test_backward_fills_the_gradient_buffers_as_grad_req_says():
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc"),
                               mx.sym.var("softmax_label"), name="softmax")
    exe = net.simple_bind(mx.cpu(), data=(4, 5), softmax_label=(4,))
    exe.arg_dict["fc_weight"][:] = mx.nd.array(np.random.RandomState(0).rand(3, 5))
    exe.arg_dict["data"][:] = mx.nd.array(np.random.RandomState(1).rand(4, 5))
    exe.arg_dict["softmax_label"][:] = mx.nd.array([0, 1, 2, 1])
    exe.forward(is_train=True)
    exe.backward()
    # MXNet 1.9.1's gradient of the same executor
    np.testing.assert_allclose(exe.grad_dict["fc_bias"].asnumpy(), [0.23381633, -0.56689835, 0.333082], rtol=1e-5)
    np.testing.assert_allclose(exe.grad_dict["fc_weight"].asnumpy()[0],
                               [0.07399, -0.104, 0.3383, 0.20781, 0.14157], atol=1e-5)
    exe.forward(is_train=True)
    exe.backward()  # 'write': the same values again, not twice them
    np.testing.assert_allclose(exe.grad_dict["fc_bias"].asnumpy(), [0.23381633, -0.56689835, 0.333082], rtol=1e-5)


def test_backward_without_gradient_buffers_is_a_no_op_as_mxnet():
    exe = _axb().bind(mx.cpu(), {"a": mx.nd.ones((2,)), "b": mx.nd.ones((2,))}, grad_req="null")
    exe.forward(is_train=True)
    exe.backward()  # a Module without parameters does this every batch
    assert exe.grad_arrays == [None, None]


def test_executors_bound_with_a_shared_executor_share_its_gradients():
    net = mx.sym.make_loss(mx.sym.broadcast_mul(mx.sym.var("data"), mx.sym.var("a")))
    first = net.simple_bind(mx.cpu(), grad_req="add", data=(2,), a=(1,))
    second = net.simple_bind(mx.cpu(), grad_req="add", data=(3,), a=(1,), shared_exec=first,
                             shared_arg_names=["a"])
    assert second.grad_dict["a"] is first.grad_dict["a"]
    for exe in (first, second):
        exe.arg_dict["data"][:] = 1
        exe.forward(is_train=True)
        exe.backward()
    assert first.grad_dict["a"].asscalar() == 5  # 2 + 3 accumulated into the one buffer


def test_a_monitor_callback_written_for_mxnets_c_handles_reads_each_array_back_read_only():
    # MXNet passes an NDArrayHandle: callbacks do ``NDArray(ctypes.cast(arr, NDArrayHandle), writable=False)``
    from hybridize.runtime.operator import NDArray, NDArrayHandle, ctypes  # MXNet's module exports these
    x = mx.sym.var("x")
    exe = mx.sym.relu(x, name="act").simple_bind(mx.cpu(), x=(1, 3), grad_req="null")
    exe.arg_dict["x"][:] = mx.nd.array([[-1, 0, 2]])
    seen = {}

    def cb(name, arr):
        back = NDArray(ctypes.cast(arr, NDArrayHandle), writable=False)
        seen[name] = back.asnumpy().tolist()
        with pytest.raises(ValueError):
            back[:] = 0
    exe.set_monitor_callback(cb, monitor_all=True)
    exe.forward()
    assert seen == {"x": [[-1, 0, 2]], "act_input0": [[-1, 0, 2]], "act_output": [[0, 0, 2]]}
