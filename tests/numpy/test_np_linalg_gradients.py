"""Gradients of ``np.linalg.norm``, ``svd``, ``tensorinv``, ``tensorsolve`` and ``np.einsum`` are MXNet
1.9.1's: the rules agree with central finite differences, and through ``mx.np`` they reproduce the
gradients MXNet recorded (``tools/numpy_rt/record_linalg_gradients.py``), imperatively and in a
hybridized block (whose backward is the compiled one), MXNet's conventions included: ties of a
max/min share the gradient, the 0-norm has none, tensorsolve differentiates both inputs, repeated
einsum indices get their diagonal."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as onp
import pytest
from gradcheck import check_vjp

import hybridize.runtime as mx
from hybridize.runtime import autograd, np, npx
from hybridize.runtime.gluon import HybridBlock

FIXTURE = onp.load(Path(__file__).resolve().parent / "fixtures" / "np_linalg_grads.npz")
CASES = json.loads(str(FIXTURE["meta"]))


def _r(*shape, seed=0):
    return onp.random.default_rng(seed).standard_normal(shape)


def _well(n, seed=0):
    return 3 * onp.eye(n) + onp.random.default_rng(seed).uniform(-0.5, 0.5, (n, n))


RULES = [
    ("_npi_norm", [_r(2, 3, 4)], {"ord": 2.0, "flag": -2}),
    ("_npi_norm", [_r(2, 3, 4)], {"ord": 4.0, "axis": (1,)}),
    ("_npi_norm", [_r(2, 3, 4)], {"ord": -3.2, "axis": (2,), "keepdims": True}),
    ("_npi_norm", [_r(2, 3, 4)], {"ord": float("inf"), "axis": (1,)}),
    ("_npi_norm", [_r(2, 3, 4)], {"ord": 1.0, "axis": (2, 1)}, [onp.ones(2)]),
    # MXNet's kernel weighs its 1/inf/2 matrix norms by the output gradient twice: the derivative with a
    # unit one
    ("_npi_norm", [_r(2, 3, 4)], {"ord": -float("inf"), "axis": (2, 0)}, [onp.ones(3)]),
    ("_npi_norm", [_r(2, 3, 4)], {"ord": 2.0, "axis": (1, 2), "flag": 0}, [onp.ones(2)]),
    ("_npi_norm", [_r(2, 3, 4)], {"ord": -2.0, "axis": (1, 2), "keepdims": True, "flag": 0},
     [onp.ones((2, 1, 1))]),
    ("_npi_norm", [_r(2, 3, 4)], {"axis": (0, 2), "flag": 2}),
    ("_npi_norm", [_r(2, 3)], {"flag": 1}),
    ("_npi_svd", [_r(3, 5)], {}),
    ("_npi_svd", [_r(2, 3, 3)], {}),
    ("_npi_tensorinv", [_well(6).reshape(2, 3, 6)], {"ind": 2}),
    ("_npi_tensorsolve", [_well(6).reshape(6, 2, 3), _r(6, seed=1)], {}),
    ("_npi_tensorsolve", [_well(6).reshape(2, 3, 6), _r(6, seed=1)], {"a_axes": (0, 1)}),
    ("_npi_einsum", [_r(3, 3)], {"num_args": 1, "subscripts": "ii->i"}),
    ("_npi_einsum", [_r(2, 3, 3), _r(3, seed=1)], {"num_args": 2, "subscripts": "bii,i"}),
    ("_npi_einsum", [_r(2, 3, 4), _r(3, 4, seed=1)], {"num_args": 2, "subscripts": "...j,...j->..."}),
    ("_npi_einsum", [_r(2, 3), _r(4, seed=1)], {"num_args": 2, "subscripts": "ij,k->ik"}),
]


@pytest.mark.parametrize("rule", RULES, ids=[f"{r[0]}-{i}" for i, r in enumerate(RULES)])
def test_rule_matches_finite_differences(rule):
    name, inputs, attrs, *heads = rule
    check_vjp(name, inputs, attrs, out_grads=heads[0] if heads else None, rtol=1e-5, atol=1e-6)


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def _call(F, case, xs):
    fn = F.np
    for part in case["fn"].split("."):
        fn = getattr(fn, part)
    lead = [case["subscripts"]] if case["subscripts"] else []
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in case["kwargs"].items()}  # JSON's lists
    return fn(*lead, *xs, **kwargs)


class _Net(HybridBlock):
    def __init__(self, case):
        super().__init__()
        self._case = case

    def hybrid_forward(self, F, *xs):
        return _call(F, self._case, xs)


def _recorded(case, kind):
    name = case["case"]
    return [FIXTURE[k] for k in sorted(k for k in FIXTURE.files if k.startswith(f"{name}/{kind}"))]


def _heads_for(case, outs):
    """MXNet's head gradients; for svd, turned by the sign of each singular pair where ours differ
    from MXNet's (both are valid decompositions: the gradient of A is the same after the turn)."""
    heads = _recorded(case, "head")
    if case["fn"] == "linalg.svd":
        v_mx = _recorded(case, "out")[2]
        s = onp.sign((outs[2].asnumpy() * v_mx).sum(axis=-1))
        heads = [heads[0] * s[..., None, :], heads[1], heads[2] * s[..., :, None]]
    return heads


@pytest.mark.parametrize("hybridized", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_gradients_match_mxnet(case, hybridized):
    xs = [np.array(a, dtype=a.dtype) for a in _recorded(case, "in")]
    for x in xs:
        x.attach_grad()
    net = _Net(case)
    if hybridized:
        net.hybridize()
    with autograd.record():
        out = net(*xs) if hybridized else _call(mx, case, xs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    for got, want in zip(outs, _recorded(case, "out")):
        assert got.shape == want.shape
    heads = _heads_for(case, outs)
    autograd.backward(outs, [np.array(h, dtype=h.dtype) for h in heads])
    tol = 1e-3 if xs[0].dtype == onp.float32 else 1e-8
    for i, (x, want) in enumerate(zip(xs, _recorded(case, "grad"))):
        assert x.grad.dtype == want.dtype
        onp.testing.assert_allclose(x.grad.asnumpy(), want, rtol=tol, atol=tol, err_msg=f"gradient of input {i}")


GRAPHS = json.loads((Path(__file__).resolve().parent / "fixtures" / "np_norm_graphs.json").read_text())


@pytest.mark.parametrize("case", GRAPHS, ids=[c["kwargs"] for c in GRAPHS])
def test_norm_graphs_exported_by_mxnet_load_and_compute_its_numbers(case):
    # MXNet's _npi_norm attributes: a float ``ord`` and a ``flag`` (-2 all elements, 1 fro, 2 nuc, 0/-1 ord)
    s = mx.sym.load_json(case["graph"])
    x = mx.nd.array(onp.array(case["input"], "float32"))
    out = s.eval(ctx=mx.cpu(), **{s.list_arguments()[0]: x})[0]
    onp.testing.assert_allclose(out.asnumpy(), onp.array(case["output"], "float32"), rtol=1e-5, atol=1e-6)


def test_norm_exports_mxnets_attributes():
    class Norm(HybridBlock):
        def hybrid_forward(self, F, a):
            return F.np.linalg.norm(a, ord="nuc", axis=(0, 1))
    net = Norm()
    net.hybridize()
    net(np.ones((2, 3)))
    (node,) = [n for n in json.loads(net._cached_graph[1].tojson())["nodes"] if n["op"] != "null"]
    assert node["op"] == "_npi_norm"
    assert (float(node["attrs"]["ord"]), node["attrs"]["flag"], node["attrs"]["axis"]) == (2.0, "2", "(0, 1)")
