"""Shortcuts the runtime takes for speed give what the general path gives.

Each test compares a fast path with the slower, obviously right route it replaces (MXNet 1.9.1's
own definition of the behaviour), never timings.
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from hybridize.runtime import nd
from hybridize.runtime import numpy as mnp
from hybridize.runtime.ndarray import NDArray

ARRAYS = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array(3.5), np.zeros((0, 3), np.int32),
          np.ones((2, 2), bool), np.arange(4, dtype=np.float16), np.arange(12.0).reshape(3, 4).T,
          np.arange(3, dtype=np.uint8), np.arange(3, dtype=np.int16)]


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_deepcopy_of_an_ndarray_is_its_pickle_round_trip(a):
    # MXNet's NDArray deep-copies through its pickled state: a new C-ordered array of the same
    # values and dtype on the default context, off the tape
    x = NDArray(a)
    via_state, copied = pickle.loads(pickle.dumps(x)), copy.deepcopy(x)
    assert type(copied) is NDArray and copied is not x
    assert copied.dtype == via_state.dtype and copied.shape == via_state.shape
    np.testing.assert_array_equal(copied.asnumpy(), via_state.asnumpy())
    assert copied.asnumpy().flags.c_contiguous and not np.shares_memory(copied.asnumpy(), a)
    assert copied.context == via_state.context


def test_deepcopy_leaves_the_original_and_the_tape():
    from hybridize.runtime import autograd
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * 2
    args = copy.deepcopy({"y": y, "x": x})
    args["y"][:] = 0
    assert y.asnumpy().tolist() == [2.0, 4.0]
    assert args["x"].grad is None and x.grad is not None


def test_deepcopy_of_a_subclass_keeps_its_own_protocol():
    a = mnp.array([1.0, 2.0])
    b = copy.deepcopy(a)
    assert type(b) is type(a) and b.asnumpy().tolist() == [1.0, 2.0]


def _forward_both_ways(sym, shapes, is_train=False):
    from hybridize.runtime.graph.interpret import evaluate
    exe = sym.simple_bind(None, grad_req="null", **shapes)
    rng = np.random.RandomState(0)
    for a in exe.arg_arrays:
        a[:] = rng.uniform(-1, 1, a.shape).astype(a.dtype)
    for a in exe.aux_arrays:  # moving statistics: a positive variance
        a[:] = rng.uniform(0.5, 1, a.shape).astype(a.dtype)
    planned = [o.asnumpy().copy() for o in exe.forward(is_train=is_train)]
    values = {n: a.asnumpy() for n, a in {**exe.arg_dict, **exe.aux_dict}.items()}
    from hybridize.runtime import autograd
    prev = autograd.set_training(is_train)
    try:
        interpreted = evaluate(sym.graph(), values)
    finally:
        autograd.set_training(prev)
    return planned, interpreted


@pytest.mark.parametrize("is_train", [False, True])
def test_executor_forward_runs_the_graph_as_the_interpreter(is_train):
    # the executor's flat kernel list (made once per executor) gives the interpreter's outputs:
    # multi-output nodes read in part, a variable read twice, auxiliary states, a hidden output
    from hybridize.runtime import sym
    x, w = sym.Variable("x"), sym.Variable("w")
    parts = sym.split(x, num_outputs=3, axis=1)
    bn = sym.BatchNorm(parts[2], name="bn", fix_gamma=False)
    y = sym.FullyConnected(parts[0] * x.slice_axis(axis=1, begin=0, end=2), w, num_hidden=4, no_bias=True)
    ln = sym.LayerNorm(parts[1], sym.ones((2,)), sym.zeros((2,)), output_mean_var=True, axis=1)
    out = sym.Group([y, sym.relu(bn) + x.slice_axis(axis=1, begin=4, end=6), ln[2]])
    planned, interpreted = _forward_both_ways(out, {"x": (3, 6), "w": (4, 2)}, is_train)
    assert len(planned) == len(interpreted) == 3
    for p, i in zip(planned, interpreted):
        np.testing.assert_array_equal(p, i)


def test_executor_forward_sees_values_written_into_bound_arrays():
    from hybridize.runtime import sym
    x = sym.Variable("x")
    exe = (x * 2).simple_bind(None, x=(2,))
    exe.arg_dict["x"][:] = np.array([1.0, 2.0], np.float32)
    assert exe.forward()[0].asnumpy().tolist() == [2.0, 4.0]
    exe.arg_dict["x"][:] = np.array([3.0, 5.0], np.float32)
    assert exe.forward()[0].asnumpy().tolist() == [6.0, 10.0]
    exe.arg_arrays[0] = nd.array([7.0, 8.0])  # a new array object bound in place of the old one
    assert exe.forward()[0].asnumpy().tolist() == [14.0, 16.0]


def _stable_first_k(x, axis, ascend, k):
    from hybridize.runtime.ops.tensor_reduce import _order
    return np.take(_order(x, axis, ascend), np.arange(k), axis=axis)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.uint8, bool])
@pytest.mark.parametrize("ties", [False, True])
def test_topk_of_a_few_among_many_is_the_stable_sorts_head(dtype, ties):
    # a few of many (k * 8 <= n) are found by a partition: the same indices as the first k of
    # the stable sort, ties in index order, along any axis, ascending or descending
    from hybridize.runtime.ops.tensor_reduce import _first_k
    rng = np.random.RandomState(0)
    for shape, axis in [((3, 200), 1), ((200, 4), 0), ((2, 100, 3), 1), ((500,), 0)]:
        if dtype is bool:
            x = rng.rand(*shape) > 0.5
        else:
            x = (rng.randint(0, 5, shape) if ties else rng.rand(*shape) * 1000).astype(dtype)
        for ascend in (True, False):
            for k in (1, 3, 7, 20):
                np.testing.assert_array_equal(_first_k(x, axis, ascend, k), _stable_first_k(x, axis, ascend, k))


def test_topk_of_a_few_among_many_with_nan_and_signed_zeros():
    from hybridize.runtime.ops.tensor_reduce import _first_k
    x = np.random.RandomState(1).rand(4, 200).astype(np.float32)
    x[0, :190] = np.nan   # fewer than k numbers: NaN sorts last
    x[1, 5] = np.nan
    x[2, ::7] = -0.0
    x[3, ::5] = 0.0
    for ascend in (True, False):
        for k in (1, 3, 20):
            np.testing.assert_array_equal(_first_k(x, 1, ascend, k), _stable_first_k(x, 1, ascend, k))


def test_topk_operator_outputs_and_gradient_on_the_partition_path():
    from hybridize.runtime import autograd
    x = nd.array(np.random.RandomState(2).permutation(600).reshape(2, 300).astype(np.float32))
    x.attach_grad()
    with autograd.record():
        v, i = nd.topk(x, k=4, ret_typ="both", axis=1)
    v.backward(nd.ones_like(v))
    want = np.sort(x.asnumpy(), axis=1)[:, ::-1][:, :4]
    np.testing.assert_array_equal(v.asnumpy(), want)
    np.testing.assert_array_equal(np.take_along_axis(x.asnumpy(), i.asnumpy().astype(int), 1), want)
    assert x.grad.asnumpy().sum() == 8 and (x.grad.asnumpy()[x.asnumpy() >= want[:, -1:]] == 1).all()
    mask = nd.topk(x, k=4, ret_typ="mask", axis=1, is_ascend=True).asnumpy()
    np.testing.assert_array_equal(mask, (x.asnumpy() <= np.sort(x.asnumpy(), axis=1)[:, 3:4]).astype(np.float32))


@pytest.mark.parametrize("equal_nan", [False, True])
def test_almost_equal_of_large_arrays_is_np_allclose(equal_nan):
    # arrays larger than a chunk are compared chunk by chunk: the verdict of np.allclose, for a
    # difference in the last element, NaN, inf, mixed dtypes and a non-contiguous operand
    from hybridize.runtime.test_utils import _CLOSE_CHUNK, almost_equal
    rng = np.random.RandomState(3)
    a = rng.rand(3 * _CLOSE_CHUNK + 5).astype(np.float32)
    variants = []
    for edit in ("none", "last", "nan", "nan_both", "inf_both", "inf_one", "tiny"):
        b = a.astype(np.float64)
        if edit == "last":
            b[-1] += 1e-3
        elif edit == "nan":
            b[7] = np.nan
        elif edit == "nan_both":
            b[7] = np.nan
        elif edit == "inf_both" or edit == "inf_one":
            b[_CLOSE_CHUNK + 1] = np.inf
        elif edit == "tiny":
            b += 1e-9
        x = a.copy()
        if edit == "nan_both":
            x[7] = np.nan
        if edit == "inf_both":
            x[_CLOSE_CHUNK + 1] = np.inf
        variants.append((x, b))
    big = rng.rand(2 * _CLOSE_CHUNK, 3)
    variants.append((big[:, 1], big[:, 1].copy()))           # a strided view
    variants.append((big[:, 1], big[:, 1] * (1 + 2e-5)))
    for x, b in variants:
        for rtol, atol in ((1e-5, 1e-6), (0.0, 0.0)):
            assert almost_equal(x, b, rtol, atol, equal_nan=equal_nan) == \
                bool(np.allclose(x, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


@pytest.fixture
def small_pool(monkeypatch):
    """The large-array pool (``ops/_buffers.py``) on arrays of 1 KiB up, starting empty."""
    from hybridize.runtime.ops import _buffers
    monkeypatch.setattr(_buffers, "MIN_BYTES", 1024)
    monkeypatch.setattr(_buffers, "_CAP", 64 << 20)
    monkeypatch.setattr(_buffers, "_blocks", [])
    return _buffers


def test_pooled_arrays_are_numpys_copies_and_zeros(small_pool):
    # asnumpy, copy, copyto(ctx) and attach_grad's buffer out of reused blocks: the values, dtype,
    # shape and independence of numpy's own copies and zeros, also when the block was written before
    from hybridize.runtime import cpu
    src = np.arange(4096, dtype=np.float32).reshape(64, 64)
    x = nd.array(src)
    for _ in range(3):
        outs = [x.asnumpy(), x.copy().asnumpy(), x.copyto(cpu()).asnumpy(), x.as_in_context(cpu(1)).asnumpy()]
        for o in outs:
            assert o.dtype == np.float32 and o.shape == (64, 64) and o.flags.c_contiguous and o.flags.writeable
            np.testing.assert_array_equal(o, src)
            assert not np.shares_memory(o, x._data)
        outs[0][:] = -1                         # the copies are independent of the array and each other
        np.testing.assert_array_equal(x.asnumpy(), src)
        np.testing.assert_array_equal(outs[1], src)
        x.attach_grad()                         # a zero gradient buffer, in a block written before
        assert x.grad.asnumpy().tolist() == np.zeros((64, 64)).tolist()
        del outs
    assert 0 < len(small_pool._blocks) <= 8     # blocks were reused, not made anew each round


def test_a_pooled_block_in_use_is_never_handed_out_again(small_pool):
    live = [small_pool.empty((1024,), np.float32) for _ in range(4)]
    view = live[0][::2]                         # a view keeps its block in use
    del live[0]
    more = [small_pool.zeros((1024,), np.float32) for _ in range(3)]
    arrays = live + more + [view]
    for i, a in enumerate(arrays):
        for b in arrays[i + 1:]:
            assert not np.shares_memory(a, b)
    assert all(m.sum() == 0 for m in more)
    small_pool._CAP = 0                          # no pool: numpy's own arrays
    assert small_pool.empty((4096,), np.float32).base is None


@pytest.mark.parametrize("draw", [
    lambda: nd.random.uniform(-2, 3, shape=(5, 9)), lambda: nd.random.normal(1, 2, shape=(45,)),
    lambda: nd.random.randint(0, 7, shape=(3, 15)), lambda: nd.random.poisson(3.5, shape=(45,)),
    lambda: nd.random.gamma(0.7, 2, shape=(45,)), lambda: nd.random.exponential(2, shape=(9, 5)),
    lambda: nd.random.uniform(shape=(5, 9), dtype="float16"),
    lambda: nd.random.uniform_like(nd.zeros((5, 9)), low=1, high=2)],
    ids=["uniform", "normal", "randint", "poisson", "gamma", "exponential", "float16", "uniform_like"])
def test_random_arrays_drawn_in_chunks_are_the_one_draw(monkeypatch, draw):
    # a large random array is drawn chunk by chunk into its dtype: the same numbers, and the same
    # generator state after, as one draw of the whole size
    from hybridize.runtime.ops import tensor_random
    results = []
    for chunk in (1 << 16, 7):
        monkeypatch.setattr(tensor_random, "_CHUNK", chunk)
        nd.random.seed(11)
        results.append((draw().asnumpy(), nd.random.uniform(shape=(3,)).asnumpy()))
    (a, after_a), (b, after_b) = results
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(after_a, after_b)


@pytest.mark.parametrize("mode,layers,bidirectional", [("lstm", 2, False), ("gru", 2, True), ("rnn_tanh", 1, False)])
def test_fused_rnn_initializer_in_place_is_unpack_init_pack(mode, layers, bidirectional):
    # FusedRNN initializes the pieces of the flat parameter vector where they lie; MXNet unpacks
    # copies of them, initializes those in the same order and packs them back: the same values
    from hybridize.runtime import initializer as init
    from hybridize.runtime import rnn
    H, I = 3, 4
    cell = rnn.FusedRNNCell(H, num_layers=layers, mode=mode, bidirectional=bidirectional, prefix="")
    D, G = 2 if bidirectional else 1, {"lstm": 4, "gru": 3, "rnn_tanh": 1}[mode]
    size = sum(D * G * H * ((I if li == 0 else D * H) + H + 2) for li in range(layers))
    fused = init.FusedRNN(init.Uniform(0.5), H, layers, mode, bidirectional)
    desc = init.InitDesc("parameters")
    np.random.seed(5)
    in_place = nd.zeros((size,))
    fused._init_weight(desc, in_place)
    np.random.seed(5)
    reference = nd.zeros((size,))
    pieces = cell.unpack_weights({"parameters": reference})
    fused._init_pieces(pieces, desc)
    reference[:] = cell.pack_weights(pieces)["parameters"]
    np.testing.assert_array_equal(in_place.asnumpy(), reference.asnumpy())
    assert (in_place.asnumpy() != 0).sum() > size // 2


def test_a_symbols_walk_is_made_once_and_again_after_an_edit():
    # Symbol.graph / list_arguments / list_auxiliary_states come from one walk per symbol; an edit
    # of its nodes through the API (Graph.set_inputs, set_attrs, composition) makes a new walk
    from hybridize.runtime import sym
    from hybridize.runtime.graph.ir import Graph, topo_order

    def fresh(s):
        g = Graph(s.outputs)
        return [n.name for n in g.nodes], [n.name for n in g.arguments()], [n.name for n in g.aux_variables()]

    def cached(s):
        return [n.name for n in s.graph().nodes], s.list_arguments(), s.list_auxiliary_states()

    x = sym.var("x")
    y = sym.BatchNorm(sym.FullyConnected(x, num_hidden=4, name="fc"), name="bn") + sym.var("z")
    assert cached(y) == fresh(y) and cached(y) == cached(y)
    assert y.graph().nodes == topo_order(y.outputs) and y.graph().nodes is not y.graph().nodes
    g = y.graph()
    add = y.outputs[0].node
    g.set_inputs(add, [add.inputs[0], x.outputs[0]])          # z is no longer an argument
    assert cached(y) == fresh(y) and "z" not in y.list_arguments()
    fc = next(n for n in g.nodes if n.name == "fc")
    g.set_attrs(fc, {**fc.attrs, "num_hidden": 5})
    assert cached(y) == fresh(y)
    w = sym.var("w")
    composed = y(x=w)
    assert cached(composed) == fresh(composed) and "w" in composed.list_arguments()
