"""The np-mode models recorded on MXNet 1.9.1 (tools/numpy_sym/record.py) and rebuilt by the tests.

Written against a namespace pair ``(nn, np)`` so the same builders run on MXNet and on the
runtime. Parameters come from :func:`set_params` (a seeded RandomState over the parameters in
``collect_params`` order), not from an initializer, so both sides hold the same values.
"""
from __future__ import annotations


def np_mlp(nn, np):
    """The seed chapter's MLP (d2l 2.x: built after ``npx.set_np()``)."""
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation='relu'), nn.Dense(128, activation='relu'), nn.Dense(2))
    return net


def np_hybridnet(nn, np):
    """The seed chapter's HybridNet (d2l 2.x: ``F.npx.relu``), without its prints."""
    class HybridNet(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.hidden = nn.Dense(4)
            self.output = nn.Dense(2)

        def hybrid_forward(self, F, x):
            x = F.npx.relu(self.hidden(x))
            return self.output(x)
    return HybridNet()


def np_convnet(nn, np):
    """A small conv net whose ``hybrid_forward`` uses np ops, scalars, slicing and a reduction."""
    class ConvNet(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.conv = nn.Conv2D(4, kernel_size=3, padding=1)
            self.bn = nn.BatchNorm()
            self.pool = nn.MaxPool2D()
            self.fc = nn.Dense(3)

        def hybrid_forward(self, F, x):
            y = F.npx.relu(self.bn(self.conv(x)))
            y = self.pool(y)
            z = F.np.concatenate([y, y * 0.5], axis=1)
            z = z[:, :6] + F.np.mean(z, axis=1, keepdims=True)
            z = F.np.tanh(z) - 1
            return self.fc(z)
    return ConvNet()


#: name -> (builder, input shape)
MODELS = {
    "np_mlp": (np_mlp, (2, 512)),
    "np_hybridnet": (np_hybridnet, (2, 3)),
    "np_convnet": (np_convnet, (2, 3, 8, 8)),
}


def set_params(net, onp) -> dict:
    """Give every parameter of ``net`` (shapes known) a value from RandomState(0), in
    ``collect_params`` order; returns structural name -> value."""
    rs = onp.random.RandomState(0)
    values = {}
    for name, p in net._collect_params_with_prefix().items():
        if name.endswith("running_var"):
            v = rs.uniform(0.5, 1.5, size=p.shape)
        else:
            v = rs.normal(0, 0.2, size=p.shape)
        v = v.astype("float32")
        p.set_data(v)
        values[name] = v
    return values
