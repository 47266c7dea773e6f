"""An executor bound at shapes other than a variable's declared ``shape=`` (``simple_bind``,
``Executor.reshape``, a Module fed a larger batch through ``test_utils.DummyIter``): the bound
shapes win. One module for both sides: ``tools/record_bound_shapes.py`` runs it under MXNet 1.9.1
(``fixtures/bound_shapes.json``), ``test_bound_shapes.py`` under the runtime, each given its ``mx``."""
from __future__ import annotations

from typing import Any

import numpy as np


def cases(mx: Any) -> dict[str, Any]:
    data = mx.sym.Variable("data", shape=(1, 3, 10, 10))
    conv = mx.sym.Convolution(data, kernel=(1, 1), num_filter=1, name="conv")
    out: dict[str, Any] = {}
    ex = conv.simple_bind(mx.cpu(), data=(1, 3, 10, 14))
    out["simple_bind"] = list(ex.outputs[0].shape)
    ex = conv.simple_bind(mx.cpu(), data=(1, 3, 10, 10)).reshape(allow_up_sizing=True, data=(2, 3, 10, 12))
    out["reshape"] = list(ex.outputs[0].shape)
    mod = mx.mod.Module(conv, label_names=None)
    mod.bind(for_training=False, data_shapes=[("data", (1, 3, 10, 10))])
    mod.init_params(initializer=mx.init.One())
    it = mx.test_utils.DummyIter(mx.io.NDArrayIter(data=mx.nd.array(np.ones((1, 3, 10, 14))), batch_size=1))
    batches = []
    for batch in it:
        batches.append(batch)
        if len(batches) == 2:
            break
    mod.forward(batches[1], is_train=False)
    out["module_forward_dummy_iter"] = [batches[0] is batches[1], list(mod.get_outputs()[0].shape),
                                        float(mod.get_outputs()[0].asnumpy().sum())]
    return out
