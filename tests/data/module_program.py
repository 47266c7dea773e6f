"""One Module-API training program, run on MXNet 1.9.1 by tools/record_data_mxnet.py (--module) and on
the runtime by test_module.py: ``run(mx, workdir)`` returns everything worth comparing."""
import logging
import os

import numpy as np


def _network(mx):
    data = mx.sym.var("data")
    fc1 = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    act = mx.sym.Activation(fc1, act_type="relu", name="relu1")
    fc2 = mx.sym.FullyConnected(act, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def _data():
    rng = np.random.RandomState(1)
    x = rng.rand(36, 6).astype(np.float32)
    y = (x[:, :3].sum(1) > 1.5).astype(np.float32) + (x[:, 3] > 0.5)
    return x, y


def _initial_params(mx):
    rng = np.random.RandomState(2)
    shapes = {"fc1_weight": (8, 6), "fc1_bias": (8,), "fc2_weight": (3, 8), "fc2_bias": (3,)}
    return {k: mx.nd.array((rng.rand(*s) - 0.5).astype(np.float32)) for k, s in shapes.items()}


class _Collect(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def run(mx, workdir):
    x, y = _data()
    out = {"batch_metrics": [], "epoch_params": []}
    logger = logging.getLogger("module_program")
    logger.setLevel(logging.INFO)
    collect = _Collect()
    logger.addHandler(collect)
    root = logging.getLogger()  # Speedometer logs through the root logger, as MXNet's
    root_level = root.level
    root.setLevel(logging.INFO)
    root.addHandler(collect)
    mod = mx.mod.Module(_network(mx), context=mx.cpu(), logger=logger)

    def batch_end(param):
        name, value = param.eval_metric.get()
        out["batch_metrics"].append([param.epoch, param.nbatch, name, float(value)])

    def epoch_end(epoch, symbol, arg_params, aux_params):
        out["epoch_params"].append({k: v.asnumpy().tolist() for k, v in sorted(arg_params.items())})

    prefix = os.path.join(workdir, "mlp")
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=8, last_batch_handle="pad"),
            eval_data=mx.io.NDArrayIter(x, y, batch_size=12),
            eval_metric="acc", num_epoch=3, optimizer="sgd",
            optimizer_params={"learning_rate": 0.3, "momentum": 0.9, "wd": 1e-3},
            arg_params=_initial_params(mx), allow_missing=False,
            batch_end_callback=[batch_end, mx.callback.Speedometer(8, 2, auto_reset=False)],
            epoch_end_callback=[epoch_end, mx.callback.do_checkpoint(prefix, period=2)])
    out["log"] = collect.lines
    logger.removeHandler(collect)
    root.removeHandler(collect)
    root.setLevel(root_level)
    out["score"] = [[n, float(v)] for n, v in mod.score(mx.io.NDArrayIter(x, y, batch_size=12), ["acc", "ce"])]
    out["predict"] = mod.predict(mx.io.NDArrayIter(x, y, batch_size=10)).asnumpy().tolist()
    # the imperative step API: forward / backward / update, and the gradients it computed
    batch = mx.io.DataBatch([mx.nd.array(x[:8])], [mx.nd.array(y[:8])])
    mod.forward(batch, is_train=True)
    mod.backward()
    out["grads"] = {n: g[0].asnumpy().tolist() for n, g in
                    zip(mod._exec_group.param_names, mod._exec_group.grad_arrays)}
    mod.update()
    arg, aux = mod.get_params()
    out["after_update"] = {k: v.asnumpy().tolist() for k, v in sorted(arg.items())}
    sym, arg2, aux2 = mx.model.load_checkpoint(prefix, 2)
    out["checkpoint"] = {"args": sorted(arg2), "aux": sorted(aux2), "outputs": sym.list_outputs(),
                         "files": sorted(f for f in os.listdir(workdir) if f.startswith("mlp"))}
    return out
