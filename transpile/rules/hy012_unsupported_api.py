"""HY012: an ``mxnet`` name that ``hybridize.runtime`` does not provide (reported by ``hybridize transpile``)."""
from ..diagnostics import Severity
from .base import Rule

RULE = Rule(
    code="HY012",
    name="unsupported-api",
    severity=Severity.ERROR,
    summary="an `mxnet` name the runtime does not provide (`mx.io.ImageRecordUInt8Iter` and MXNet's other C++ "
            "iterators, `mx.rtc`, `mx.kvstore_server`, ...)",
    rationale=(
        "`hybridize transpile` maps `mxnet` to `hybridize.runtime`, which implements MXNet's "
        "inference side (NDArray/Symbol operators, Gluon blocks, parameters, layers, losses, "
        "autograd recording), its optimizers (`mx.optimizer`, `mx.lr_scheduler`, `gluon.Trainer`, "
        "`mx.kv`, distributed on Dask) and its data and metric infrastructure (`gluon.data`, `mx.io`, "
        "`mx.metric`, `mx.recordio`, `mx.image`), but not all of MXNet (its C++ record iterators, `mx.rtc`). A module that uses a "
        "name the runtime lacks would import (or run) until that line and then fail with an "
        "`AttributeError`/`ImportError`. The transpiler resolves every `mxnet` name a module uses "
        "against the runtime's real namespace (importing it), so such a module is never reported "
        "as transpiled. Only `hybridize transpile` reports this rule: on MXNet itself the code is "
        "fine, so `hybridize-check` (which checks hybridizability) does not."
    ),
    fix_advice="Keep that code on MXNet (transpile the model and training modules only), "
               "or replace the name by what the runtime offers (`gluon.data.vision.ImageRecordDataset` and a "
               "`DataLoader` instead of `mx.io.ImageRecordUInt8Iter`); "
               "`--keep-going` still writes the module, with its "
               "imports mapped, the finding in its header, and a name the runtime lacks (`from mxnet.io "
               "import MXDataIter`, `mx.io.ImageRecordUInt8Iter`, `import mxnet.rtc as rtc`) replaced by a placeholder "
               "that raises naming it when called (or when a class derived from it is instantiated), so "
               "the package still imports: annotations and base classes that only name it evaluate.",
    events=(),
    check=None,
    reported_by="hybridize transpile",
    valid=(
        "import mxnet as mx\nfrom mxnet import autograd, gluon, nd\nfrom mxnet.gluon import nn\n\n\n"
        "net = nn.Dense(2)\nnet.initialize(mx.init.Xavier())\nwith autograd.record():\n"
        "    y = net(nd.ones((1, 3)))\ny.backward()\n",
    ),
    invalid=(
        "import mxnet as mx\nfrom mxnet import gluon\n\n\n"
        "def train(net, data, label):\n"
        "    trainer = gluon.Trainer(net.collect_params(), 'sgd')\n"
        "    accuracy = mx.metric.Accuracy()\n"
        "    batches = mx.io.ImageRecordUInt8Iter(path_imgrec=data, batch_size=2)  # expect: HY012\n"
        "    kernel = mx.rtc.CudaModule(label)  # expect: HY012\n"
        "    return trainer, accuracy, batches, kernel\n",
        "from mxnet.io import MXDataIter  # expect: HY012\n\n\n"
        "def batches(handle):\n    return MXDataIter(handle, data_name='data')\n",
    ),
)
