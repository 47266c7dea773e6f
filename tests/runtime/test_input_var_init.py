"""Operators give some variable inputs their initializer, as MXNet 1.9.1's FSetInputVarAttrOnCompose:
BatchNorm's moving statistics (zero, one), LeakyReLU's prelu gamma (0.25), IdentityAttachKLSparseReg's
moving average (zero), unless the variable has its own. The attributes below are what MXNet 1.9.1's
``attr_dict()`` prints for the same symbols; ``Module.init_params`` then initializes from them. Node
attributes given as ``__key__`` keyword arguments (``__layout__``, which the Module reads) are kept."""
from __future__ import annotations

import hybridize.runtime as mx
import numpy as np


def test_batchnorm_and_prelu_variables_carry_mxnets_initializers() -> None:
    d = mx.sym.var("data")
    assert mx.sym.BatchNorm(d, name="bn").attr_dict() == {"bn_moving_mean": {"__init__": '["zero", {}]'},
                                                          "bn_moving_var": {"__init__": '["one", {}]'}}
    attrs = mx.sym.LeakyReLU(d, act_type="prelu", name="act").attr_dict()
    assert attrs["act_gamma"]["__init__"] == '["Constant", {"value": 0.25}]'
    own = mx.sym.var("g", init=mx.init.One())
    assert mx.sym.LeakyReLU(d, gamma=own, act_type="prelu").attr_dict()["g"]["__init__"] == own.attr("__init__")


def test_module_init_params_follows_them() -> None:
    mod = mx.mod.Module(mx.sym.LeakyReLU(mx.sym.var("data"), act_type="prelu"), label_names=None)
    mod.bind(data_shapes=[("data", (4, 4))])
    mod.init_params()
    assert (list(mod.get_params()[0].values())[0].asnumpy() == 0.25).all()
    mod = mx.mod.Module(mx.sym.BatchNorm(mx.sym.var("data"), name="bn"), label_names=None)
    mod.bind(data_shapes=[("data", (2, 3, 2, 2))])
    mod.init_params()
    aux = mod.get_params()[1]
    assert (aux["bn_moving_var"].asnumpy() == 1).all() and not np.any(aux["bn_moving_mean"].asnumpy())


def test_dunder_keyword_arguments_are_node_attributes_as_mxnet() -> None:
    s = mx.sym.Activation(data=mx.sym.var("data"), act_type="relu", __layout__="TNC")
    assert s.attr("__layout__") == "TNC"  # MXNet 1.9.1: attr_dict {'activation0': {'act_type': 'relu', '__layout__': 'TNC'}}
    assert s.attr_dict()[s.name] == {"act_type": "relu", "__layout__": "TNC"}
