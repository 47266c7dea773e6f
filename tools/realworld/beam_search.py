"""gluon-nlp 0.10's HybridBeamSearchSampler (F.contrib.while_loop and cond) imperative vs hybridized.

    python tools/realworld/beam_search.py ours                       # saves the parameters
    $RW_MXNET_PYTHON tools/realworld/beam_search.py mxnet            # loads them, real MXNet 1.9.1

Outputs go to /tmp/bs (imp-MODE.npz, out-MODE.npz). Needs the gluonnlp source of README.md."""
import sys
import os
sys.path.insert(0, "/work/main/tools/realworld")
import numpy as np
for _n, _t in (("int", int), ("float", float), ("bool", bool), ("object", object)):
    if not hasattr(np, _n): setattr(np, _n, _t)
import rwload
mode = sys.argv[1]
NLP = "/tmp/dl/x/gluonnlp/gluonnlp-0.10.0/src"
rwload.setup(NLP, ["gluonnlp", "gluonnlp.model"], mxnet_alias=(mode != "mxnet"))
import importlib
import mxnet as mx
from mxnet.gluon import nn, HybridBlock
ss = importlib.import_module("gluonnlp.model.sequence_sampler")
V, H, B, K = 7, 6, 2, 3
class Decoder(HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.emb = nn.Embedding(V, H)
            self.cell = nn.Dense(H, flatten=False)
            self.out = nn.Dense(V, flatten=False)
    def hybrid_forward(self, F, step_input, states):
        h = F.tanh(self.cell(F.concat(self.emb(step_input), states, dim=-1)))
        return F.log_softmax(self.out(h)), h
dec = Decoder(prefix="dec_")
sampler = ss.HybridBeamSearchSampler(batch_size=B, beam_size=K, decoder=dec, eos_id=1,
                                     scorer=ss.BeamSearchScorer(alpha=1.0, K=5), max_length=6, vocab_size=V)
sampler.initialize(mx.init.Normal(1.0))
inputs = mx.nd.array([2, 3], dtype=sys.argv[2] if len(sys.argv) > 2 else "float32")
states = mx.nd.array(np.random.default_rng(0).standard_normal((B, H)).astype(np.float32))
os.makedirs("/tmp/bs", exist_ok=True)
path = "/tmp/bs/params.npz"
if mode == "mxnet":
    p = np.load(path)
    for name, prm in sampler.collect_params().items():
        prm.set_data(mx.nd.array(p[name]))
ys_imp = [y.asnumpy() for y in sampler(inputs, states)]
np.savez(f"/tmp/bs/imp-{mode}.npz", *ys_imp)
if mode != "mxnet":
    np.savez(path, **{n: prm.data().asnumpy() for n, prm in sampler.collect_params().items()})
sampler.hybridize()
ys_hyb = [y.asnumpy() for y in sampler(inputs, states)]
np.savez(f"/tmp/bs/out-{mode}.npz", *ys_hyb)
for a, b in zip(ys_imp, ys_hyb):
    print(mode, a.shape, "imperative vs hybridized max diff", float(np.max(np.abs(a.astype(np.float64) - b))))
