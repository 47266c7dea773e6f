"""Symbol API as MXNet 1.9.1 documents and behaves: composition, partial inference, attributes."""
import warnings

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime.base import MXNetError


def test_calling_a_symbol_composes_it_and_leaves_the_original_alone():
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=3, name="fc1") * 2
    other = mx.sym.var("x") * 3
    composed = net(data=other)
    assert composed.list_arguments() == ["x", "fc1_weight", "fc1_bias"]
    assert net.list_arguments() == ["data", "fc1_weight", "fc1_bias"]
    assert composed.infer_shape(x=(2, 5))[1] == [(2, 3)]
    with pytest.raises(MXNetError, match="nope"):
        net(nope=other)
    with pytest.raises(MXNetError, match="kwargs"):
        net(other)  # MXNet: general composition only supports keyword arguments


def test_an_atomic_symbol_composes_positionally_or_by_input_name():
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
    atomic = fc._gen_atomic_symbol()
    assert atomic.list_arguments() == ["data", "weight", "bias"]
    x, w, b = mx.sym.var("x"), mx.sym.var("w"), mx.sym.var("b")
    assert atomic(data=x, weight=w, bias=b).list_arguments() == ["x", "w", "b"]
    assert atomic(x, w, b).infer_shape(x=(2, 3))[0] == [(2, 3), (4, 3), (4,)]
    rnn = mx.sym.RNN(mx.sym.var("d"), mx.sym.var("p"), mx.sym.var("h0"), mx.sym.var("h1"), state_size=10,
                     num_layers=2, bidirectional=True, state_outputs=True, mode="lstm")
    assert len(rnn._gen_atomic_symbol().list_outputs()) == 3


def test_infer_shape_returns_none_for_incomplete_input_and_partial_gives_what_is_known():
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert fc.infer_shape() == (None, None, None)
    assert "Cannot decide shape" in str(w[0].message)
    assert fc.infer_shape_partial() == ([(), (), ()], [()], [])
    assert fc.infer_shape_partial(data=(2,)) == ([(2,), (3, 1), (3,)], [(2, 3)], [])
    with pytest.raises(MXNetError):  # contradicting shapes still raise
        (mx.sym.var("a") + mx.sym.var("b")).infer_shape(a=(2, 3), b=(3, 2))


def test_a_var_shape_is_a_hint_the_caller_can_override():
    c = mx.sym.var("c", shape=(2, 3))
    assert (c * 2).infer_shape() == ([(2, 3)], [(2, 3)], [])
    assert (c * 2).infer_shape(c=(4, 5)) == ([(4, 5)], [(4, 5)], [])


def test_infer_type_partial_and_unknown_types():
    s = mx.sym.var("x") + mx.sym.var("y")
    assert s.infer_type(x="float64") == ([np.float64, np.float64], [np.float64], [])
    assert s.infer_type_partial() == ([None, None], [None], [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert mx.sym.var("z").infer_type() == (None, None, None)
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3)
    assert fc.infer_type(data="float64")[0] == [np.float64] * 3  # weight and bias follow the data
    emb = mx.sym.Embedding(mx.sym.var("d"), input_dim=3, output_dim=2)
    assert emb.infer_type(d="int32") == ([np.int32, np.float32], [np.float32], [])
    assert mx.sym.var("q", dtype="float16").infer_type() == ([np.float16], [np.float16], [])


def test_children_and_internals():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    assert fc.get_children().list_outputs() == ["data", "fc_weight", "fc_bias"]
    assert data.get_children() is None
    act = mx.sym.relu(fc, name="act")
    assert act.get_internals().list_outputs() == ["data", "fc_weight", "fc_bias", "fc_output", "act_output"]
    assert act.get_internals()["fc_output"].list_outputs() == ["fc_output"]


def test_hidden_attributes_are_mirrored_as_mxnet_lists_them():
    a = mx.sym.var("a", shape=(2, 3), lr_mult=2.0, wd_mult=0.5, attr={"__ctx_group__": "g", "foo": "bar"})
    assert a.list_attr() == {"__ctx_group__": "g", "ctx_group": "g", "foo": "bar", "__shape__": "(2, 3)",
                             "__lr_mult__": "2.0", "lr_mult": "2.0", "__wd_mult__": "0.5", "wd_mult": "0.5"}
    assert a.attr("lr_mult") == "2.0" and a.attr("__lr_mult__") == "2.0" and a.attr("missing") is None
    b = mx.sym.var("b", attr={"lr_mult": "3"})  # set without underscores: stored with them
    assert b.list_attr() == {"__lr_mult__": "3", "lr_mult": "3"}
    b._set_attr(mirror_stage="1")
    assert b.attr("__mirror_stage__") == "1"
    fc = mx.sym.FullyConnected(a, num_hidden=4, name="fc", attr={"__ctx_group__": "dev1"})
    assert fc.attr_dict()["fc"] == {"__ctx_group__": "dev1", "ctx_group": "dev1", "num_hidden": "4"}
    assert '"__lr_mult__": "2.0"' in fc.tojson() and '"lr_mult"' not in fc.tojson()  # JSON keeps one spelling
    with pytest.raises(ValueError, match="string"):
        b._set_attr(lr_mult=2)


def test_truth_value_of_a_symbol_is_not_implemented_for_symbol():
    from hybridize.runtime.base import NotImplementedForSymbol
    with pytest.raises(NotImplementedForSymbol, match="Function __bool__ .namely operator \"bool\". is not implemented"):
        bool(mx.sym.var("x"))


def test_children_list_each_head_node_once():
    sliced = mx.sym.SliceChannel(mx.sym.var("data"), num_outputs=3, name="slice")
    assert sliced.get_children().list_outputs() == ["data"]
    assert mx.sym.Concat(*list(sliced)).get_children().list_outputs() == [
        "slice_output0", "slice_output1", "slice_output2"]


def test_partial_type_inference_knows_outputs_fixed_by_attributes():
    mlp = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Cast(mx.sym.var("data"), dtype="float32"),
                                                     num_hidden=8, name="fc1"), name="softmax")
    assert mlp.infer_type_partial() == ([None, np.float32, np.float32, np.float32], [np.float32], [])
    assert mlp.infer_type(data=np.float16)[0] == [np.float16, np.float32, np.float32, np.float32]


def test_variables_an_op_creates_carry_its_attributes_and_hidden_keys_are_keywords():
    data = mx.sym.var("data", attr={"mood": "angry"})
    conv = mx.sym.Convolution(data=data, name="conv", kernel=(1, 1), num_filter=1,
                              attr={"__mood__": "so so"}, lr_mult=1)
    d = conv.attr_dict()
    assert d["data"] == {"mood": "angry"}
    assert d["conv"] == {"__mood__": "so so", "__lr_mult__": "1", "lr_mult": "1", "kernel": "(1, 1)",
                         "num_filter": "1"}
    assert d["conv_weight"] == d["conv_bias"] == d["conv"]  # MXNet copies them onto conv_weight/conv_bias
    plain = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, name="fc")
    # MXNet copies the parameters (num_hidden) even without annotations; the runtime copies only when
    # there are annotations, so the JSON of plain graphs stays as it was (a known difference)
    assert "fc_weight" not in plain.attr_dict()
