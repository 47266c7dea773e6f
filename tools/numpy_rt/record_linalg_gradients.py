"""Records MXNet 1.9.1's gradients of ``np.linalg.norm``/``svd``/``tensorinv``/``tensorsolve`` and
``np.einsum`` through its NumPy interface, for ``tests/numpy/test_np_linalg_gradients.py``.

Run with the MXNet 1.9.1 interpreter (never by the test suite)::

    /tmp/mxnet-venv/bin/python tools/numpy_rt/record_linalg_gradients.py

Each case calls one ``mx.np`` function under ``mx.autograd.record()`` on seeded inputs and
back-propagates seeded head gradients (one per output) with ``mx.autograd.backward``. It writes
``tests/numpy/fixtures/np_linalg_grads.npz``: per case ``<case>/in<i>``, ``<case>/head<k>``,
``<case>/out<k>``, ``<case>/grad<i>``, and ``meta``, a JSON list of ``{case, fn, kwargs}``; and
``tests/numpy/fixtures/np_norm_graphs.json``: the graph JSON MXNet's hybridized ``np.linalg.norm`` exports
(``_npi_norm`` with MXNet's ``ord``/``flag`` attributes) for several orders, with an input and the output.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as onp

OUT = Path(__file__).resolve().parents[2] / "tests" / "numpy" / "fixtures" / "np_linalg_grads.npz"
GRAPHS = OUT.parent / "np_norm_graphs.json"
GRAPH_CASES = [{}, {"ord": "fro", "axis": (0, 2)}, {"ord": "nuc", "axis": (1, 2)}, {"ord": -2, "axis": (1, 2)},
               {"ord": -3, "axis": 1}, {"axis": 2, "keepdims": True}, {"ord": float("inf"), "axis": (0, 1)}]


def record_graphs() -> None:
    import mxnet as mx
    from mxnet import np
    from mxnet.gluon import HybridBlock
    x = _x(2, 3, 4, seed=9)
    cases = []
    for kwargs in GRAPH_CASES:
        class Norm(HybridBlock):
            def hybrid_forward(self, F, a, kw=kwargs):
                return F.np.linalg.norm(a, **kw)
        net = Norm()
        net.hybridize()
        out = net(np.array(x))
        cases.append({"kwargs": repr(kwargs), "graph": net._cached_graph[1].tojson(), "input": x.tolist(),
                      "output": out.asnumpy().tolist()})
    del mx
    GRAPHS.write_text(json.dumps(cases))


def _x(*shape, seed=0, dtype="float32"):
    return onp.random.RandomState(seed).uniform(-2.0, 2.0, shape).astype(dtype)


def _well(n, seed=0):
    """A well-conditioned n x n matrix (identity-dominated)."""
    return (3 * onp.eye(n) + onp.random.RandomState(seed).uniform(-0.5, 0.5, (n, n))).astype("float32")


# (case, function under mx.np, positional inputs, keyword arguments)
CASES = [
    ("norm_flat", "linalg.norm", [_x(2, 3, 4)], {}),
    ("norm_vec_2", "linalg.norm", [_x(2, 3)], {"ord": 2, "axis": 1}),
    ("norm_vec_4", "linalg.norm", [_x(2, 3, 4)], {"ord": 4, "axis": 1}),
    ("norm_vec_neg3_2", "linalg.norm", [_x(2, 3, 4)], {"ord": -3.2, "axis": 2}),
    ("norm_vec_1", "linalg.norm", [_x(2, 3, 4)], {"ord": 1, "axis": 1, "keepdims": True}),
    ("norm_vec_0", "linalg.norm", [_x(2, 3, 4)], {"ord": 0, "axis": 2}),
    ("norm_vec_inf_ties", "linalg.norm", [onp.array([[1, -3, 3], [2, 0, -2]], "float32")],
     {"ord": "inf", "axis": 1}),
    ("norm_vec_neg_inf", "linalg.norm", [_x(2, 3, 4)], {"ord": "-inf", "axis": 0}),
    ("norm_1d", "linalg.norm", [_x(5)], {}),
    ("norm_vec_neg1_zero", "linalg.norm", [onp.array([[0, 1, 2], [3, -1, 2]], "float32")], {"ord": -1, "axis": 1}),
    ("norm_2d_str_inf", "linalg.norm", [onp.array([[1, -5], [3, 4]], "float32")], {"ord": "inf"}),
    ("norm_2d_str_neg_inf", "linalg.norm", [_x(2, 3)], {"ord": "-inf"}),
    ("norm_2d_float_inf", "linalg.norm", [_x(2, 3)], {"ord": float("inf")}),
    ("norm_mat_1", "linalg.norm", [_x(2, 3, 4)], {"ord": 1, "axis": (2, 1)}),
    ("norm_mat_neg1", "linalg.norm", [_x(2, 3, 4)], {"ord": -1, "axis": (0, 1)}),
    ("norm_mat_1_ties", "linalg.norm", [onp.array([[1, -2], [-1, 2], [0, 0]], "float32")], {"ord": 1, "axis": (0, 1)}),
    ("norm_mat_inf", "linalg.norm", [_x(2, 3, 4)], {"ord": "inf", "axis": (0, 2)}),
    ("norm_mat_neg_inf", "linalg.norm", [_x(2, 3, 4)], {"ord": "-inf", "axis": (1, 0)}),
    ("norm_mat_2", "linalg.norm", [_x(2, 3, 4)], {"ord": 2, "axis": (1, 2)}),
    ("norm_mat_neg2_keep", "linalg.norm", [_x(2, 3, 4)], {"ord": -2, "axis": (0, 2), "keepdims": True}),
    ("norm_mat_fro", "linalg.norm", [_x(2, 3, 4)], {"ord": "fro", "axis": (0, 2)}),
    ("norm_mat_none", "linalg.norm", [_x(3, 2, 3)], {"axis": (1, 2)}),
    ("norm_mat_nuc", "linalg.norm", [_x(2, 3, 4)], {"ord": "nuc", "axis": (0, 2)}),
    ("norm_2d_neg1", "linalg.norm", [_x(2, 3)], {"ord": -1}),
    ("norm_2d_nuc", "linalg.norm", [_x(2, 2)], {"ord": "nuc"}),
    ("norm_float64", "linalg.norm", [_x(3, 4, dtype="float64")], {"ord": 2, "axis": (0, 1)}),
    ("svd_3x5", "linalg.svd", [_x(3, 5)], {}),
    ("svd_batch", "linalg.svd", [_x(2, 3, 3, seed=1)], {}),
    ("svd_float64", "linalg.svd", [_x(2, 4, dtype="float64", seed=2)], {}),
    ("tensorinv_ind2", "linalg.tensorinv", [_well(6).reshape(2, 3, 6)], {"ind": 2}),
    ("tensorinv_ind1", "linalg.tensorinv", [_well(6, seed=1).reshape(6, 2, 3)], {"ind": 1}),
    ("tensorsolve", "linalg.tensorsolve", [_well(6).reshape(6, 2, 3), _x(6, seed=1)], {}),
    ("tensorsolve_axes", "linalg.tensorsolve", [_well(6, seed=2).reshape(2, 3, 6), _x(6, seed=3)], {"axes": (0, 1)}),
    ("tensorsolve_4d", "linalg.tensorsolve", [_well(6, seed=4).reshape(2, 3, 2, 3), _x(2, 3, seed=5)], {}),
    ("einsum_matmul", "einsum", ["ij,jk->ik", _x(2, 3), _x(3, 4, seed=1)], {}),
    ("einsum_diag", "einsum", ["ii->i", _x(3, 3)], {}),
    ("einsum_trace_implicit", "einsum", ["ii", _x(3, 3)], {}),
    ("einsum_triple", "einsum", ["iii->", _x(2, 2, 2)], {}),
    ("einsum_batch_diag", "einsum", ["bii,i", _x(2, 3, 3), _x(3, seed=1)], {}),
    ("einsum_ellipsis", "einsum", ["...j,jk->...k", _x(2, 3, 4), _x(4, 2, seed=1)], {}),
    ("einsum_ellipsis_broadcast", "einsum", ["...j,...j->...", _x(2, 1, 4), _x(3, 4, seed=1)], {}),
    ("einsum_ellipsis_fewer_dims", "einsum", ["...j,...j->...", _x(2, 3, 4), _x(3, 4, seed=1)], {}),
    ("einsum_ellipsis_diag", "einsum", ["...ii->...i", _x(2, 3, 3)], {}),
    ("einsum_implicit", "einsum", ["ij,jk", _x(2, 3), _x(3, 2, seed=1)], {}),
    ("einsum_sum_one_operand", "einsum", ["ij,k->ik", _x(2, 3), _x(4, seed=1)], {}),
]


def main() -> None:
    import mxnet as mx
    from mxnet import np, npx
    npx.set_np()
    arrays: dict[str, onp.ndarray] = {}
    meta = []
    for case, fn_name, args, kwargs in CASES:
        fn = np
        for part in fn_name.split("."):
            fn = getattr(fn, part)
        lead = [a for a in args if isinstance(a, str)]
        ins = [a for a in args if not isinstance(a, str)]
        xs = [np.array(a, dtype=a.dtype) for a in ins]
        for x in xs:
            x.attach_grad()
        with mx.autograd.record():
            out = fn(*lead, *xs, **kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        rs = onp.random.RandomState(7)
        heads = [rs.standard_normal(o.shape).astype(o.dtype) for o in outs]
        mx.autograd.backward(outs, [np.array(h, dtype=h.dtype) for h in heads])
        for i, (a, x) in enumerate(zip(ins, xs)):
            arrays[f"{case}/in{i}"] = a
            arrays[f"{case}/grad{i}"] = x.grad.asnumpy()
        for k, (o, h) in enumerate(zip(outs, heads)):
            arrays[f"{case}/out{k}"] = o.asnumpy()
            arrays[f"{case}/head{k}"] = h
        meta.append({"case": case, "fn": fn_name, "subscripts": lead[0] if lead else None, "kwargs": kwargs})
    arrays["meta"] = onp.array(json.dumps(meta))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    onp.savez_compressed(OUT, **arrays)
    print(f"wrote {len(meta)} cases to {OUT}")
    record_graphs()


if __name__ == "__main__":
    main()
