"""np-mode Gluon networks recorded on MXNet 1.9.1 (tools/numpy_rt/record.py) and rebuilt by
tests/numpy/test_np_gluon.py: each is built from the ``nn`` module it is given (MXNet's or the
runtime's), so the two build the same layers in the same order."""
import numpy as onp


def _mlp(nn):
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu"), nn.Dense(6, activation="tanh"), nn.Dense(3))
    return net


def _convnet(nn):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
            nn.MaxPool2D(pool_size=2), nn.Conv2D(6, kernel_size=3, strides=2, use_bias=False),
            nn.BatchNorm(scale=False), nn.LeakyReLU(0.1), nn.AvgPool2D(pool_size=1), nn.Flatten(),
            nn.Dropout(0.0), nn.Dense(5))
    return net


def _custom(nn):
    class Head(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = nn.Dense(4, flatten=False)

        def hybrid_forward(self, F, x):
            h = F.npx.relu(self.dense(x))
            return F.np.mean(h, axis=1) + F.np.sum(x, axis=1)[:, :1] * 0.5

    net = nn.HybridSequential()
    net.add(nn.LayerNorm(), Head())
    return net


NETS = {
    "mlp": (_mlp, (4, 5)),
    "convnet": (_convnet, (2, 3, 8, 8)),
    "custom": (_custom, (2, 3, 4)),
}


def set_params(net, np):
    """Every parameter set from a seeded RandomState in collection order (variances positive);
    ``np`` is MXNet's or the runtime's ``mx.np``."""
    for i, (name, p) in enumerate(net.collect_params().items()):
        rs = onp.random.RandomState(100 + i)
        shape = p.data().shape
        if name.endswith(("running_var", "moving_var")):
            value = rs.uniform(0.5, 1.5, shape)
        else:
            value = rs.uniform(-0.5, 0.5, shape)
        p.set_data(np.array(value.astype("float32")))
