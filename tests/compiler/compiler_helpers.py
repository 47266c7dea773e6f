"""Helpers of the compiler tests: random parameters for a symbol, reference outputs."""
import numpy as np

from hybridize.runtime.graph.codegen import compile_graph
from hybridize.runtime.graph.interpret import evaluate


def random_params(symbol, shapes: dict, seed: int = 0) -> dict:
    arg, _, aux = symbol.infer_shape(**shapes)
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in zip(symbol.list_arguments() + symbol.list_auxiliary_states(), arg + aux):
        if name in shapes:
            continue
        if name.endswith("moving_var") or name.endswith("running_var"):
            out[name] = rng.uniform(0.5, 1.5, shape).astype(np.float32)
        else:
            out[name] = (rng.standard_normal(shape) * 0.5).astype(np.float32)
    return out


def check(symbol, shapes: dict, passes=None, seed: int = 0, rtol: float = 1e-4, **kw):
    """Compiles ``symbol`` with ``passes`` and compares with the reference interpreter; returns the program."""
    g = symbol.graph()
    params = random_params(symbol, shapes, seed)
    rng = np.random.default_rng(seed + 1)
    inputs = {k: rng.standard_normal(v).astype(np.float32) for k, v in shapes.items()}
    ref = evaluate(g, {**params, **inputs})
    prog = compile_graph(g, input_names=list(shapes), shapes=shapes, params=params, passes=passes, **kw)
    outs = prog(*[inputs[k] for k in shapes])
    assert len(outs) == len(ref)
    for o, r in zip(outs, ref):
        np.testing.assert_allclose(o, r, rtol=rtol, atol=rtol * max(1.0, float(np.abs(r).max())))
    return prog


# the convolution the tuning tests time (with a fake, counting ``time_conv``: no timing assertions)
TUNE_ATTRS = dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1), dilate=(1, 1), num_filter=4, groups=1, act=(),
                  has_bias=True, has_res=False)
TUNE_CANDIDATES = ("gemm", "wino", "wino4")
FAKE_SECONDS = {"gemm": 3.0, "wino": 1.0, "wino4": 2.0}     # "wino" wins
