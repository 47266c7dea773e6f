"""One Gluon training program fed by a ``DataLoader`` with worker processes, run on MXNet 1.9.1 by
tools/record_gluon_training_mxnet.py and on the runtime by test_gluon_training.py: ``run(mx,
num_workers)`` returns the batches in the order they came, the loss after every step, the metrics
after every batch and the parameters after every epoch."""
import numpy as np


def _scale(x):
    """The dataset's transform (module level: MXNet's worker pool must be able to reach it)."""
    return x * 2 - 1


def _data():
    rng = np.random.RandomState(5)
    x = rng.rand(23, 6).astype(np.float32)
    y = ((x[:, :3].sum(1) > 1.5).astype(np.float32) + (x[:, 3] > 0.5)).astype(np.float32)
    return x, y


def _initial_params():
    rng = np.random.RandomState(6)
    return [(rng.rand(*s) - 0.5).astype(np.float32) for s in [(8, 6), (8,), (3, 8), (3,)]]


def run(mx, num_workers=2):
    autograd, gluon = mx.autograd, mx.gluon
    x, y = _data()
    ds = gluon.data.ArrayDataset(x, y).transform_first(_scale)
    loader = gluon.data.DataLoader(ds, batch_size=5, shuffle=True, last_batch="rollover",
                                   num_workers=num_workers)
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(8, activation="relu", in_units=6), gluon.nn.Dense(3, in_units=8))
    net.initialize()
    params = list(net.collect_params().values())
    for p, value in zip(params, _initial_params()):
        p.set_data(mx.nd.array(value))
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5, "momentum": 0.9, "wd": 1e-3})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    acc, ce = mx.metric.Accuracy(), mx.metric.CrossEntropy()
    out = {"batches": [], "losses": [], "metrics": [], "epoch_params": []}
    np.random.seed(3)   # the DataLoader shuffles with numpy's global generator (the runtime's mx.init draws from it too)
    for epoch in range(2):
        acc.reset()
        ce.reset()
        for xb, yb in loader:
            xb, yb = xb.as_in_context(mx.cpu()), yb.as_in_context(mx.cpu())   # workers' batches: cpu_shared
            out["batches"].append([epoch, xb.asnumpy().tolist(), yb.asnumpy().tolist()])
            with autograd.record():
                z = net(xb)
                loss = loss_fn(z, yb)
            loss.backward()
            trainer.step(xb.shape[0])
            out["losses"].append(float(loss.mean().asscalar()))
            acc.update(yb, z)
            ce.update(yb, mx.nd.softmax(z))
            out["metrics"].append([epoch, acc.get()[1], ce.get()[1]])
        out["epoch_params"].append([p.data().asnumpy().tolist() for p in params])
    return out


def run_module(mx):
    """The same data through the Module API's step loop (``forward_backward``/``update``/
    ``update_metric``) over a shuffled ``NDArrayIter`` whose last batch rolls over: its batches, the
    batch loss (mean cross-entropy of the softmax outputs) and the metrics after every batch."""
    x, y = _data()
    data = mx.sym.var("data")
    net = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    np.random.seed(4)          # NDArrayIter shuffles with numpy's global generator
    it = mx.io.NDArrayIter(x, y, batch_size=5, shuffle=True, last_batch_handle="roll_over")
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.bind(it.provide_data, it.provide_label)
    names = ["fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]
    mod.init_params(arg_params={n: mx.nd.array(v) for n, v in zip(names, _initial_params())})
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5, "momentum": 0.9, "wd": 1e-3})
    acc, ce = mx.metric.Accuracy(), mx.metric.CrossEntropy()
    out = {"batches": [], "losses": [], "metrics": [], "epoch_params": []}
    for epoch in range(2):
        it.reset()
        acc.reset()
        ce.reset()
        for batch in it:
            out["batches"].append([epoch, batch.pad, batch.data[0].asnumpy().tolist(), batch.label[0].asnumpy().tolist()])
            mod.forward_backward(batch)
            mod.update()
            prob = mod.get_outputs()[0].asnumpy()
            label = batch.label[0].asnumpy().astype(int)
            out["losses"].append(float(-np.log(prob[np.arange(len(label)), label] + 1e-12).mean()))
            mod.update_metric(acc, batch.label)
            mod.update_metric(ce, batch.label)
            out["metrics"].append([epoch, acc.get()[1], ce.get()[1]])
        arg, _ = mod.get_params()
        out["epoch_params"].append([arg[n].asnumpy().tolist() for n in names])
    return out
