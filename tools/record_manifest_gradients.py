"""Records MXNet 1.9.1's gradients of the operator cases in ``shared/fixtures/mxnet/ops/manifest.json``.

Run with real MXNet (``/tmp/mxnet-venv/bin/python tools/record_manifest_gradients.py [OUT_DIR]``). For each
case it marks every non-auxiliary input (``attach_grad``), runs the op under ``autograd.record``,
calls ``autograd.backward`` with seeded standard-normal head gradients and writes
``<case>.npz``: ``meta`` (JSON: op, attrs as MXNet's strings, train, case, num_inputs, num_outputs),
``input<i>``, ``output<k>``, ``head_grad<k>``, ``grad<i>`` (inputs that got a gradient buffer). A case
MXNet refuses (no FGradient, or an error) is listed in ``index.json`` with MXNet's message instead.
Same format as ``tools/record_gradients.py`` (``tests/gradcheck.py``: ``load_recorded``); read by ``tests/autograd/test_op_gradients.py``.
"""
import json
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "fixtures", "mxnet", "ops")
if not os.path.isdir(SHARED):
    SHARED = "/work/shared/fixtures/mxnet/ops"
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "runtime", "fixtures", "gradients")
# cases whose forward draws random numbers in training mode: recorded in prediction mode
PREDICT = {"dropout_infer", "batchnorm_infer"}
# inputs MXNet refuses to differentiate (Embedding: "doesn't support calculate data gradient")
NO_GRAD = {("Embedding", 0)}


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(SHARED, "manifest.json")) as fh:
        manifest = json.load(fh)
    index = {}
    for i, case in enumerate(manifest["cases"]):
        name = case["case"]
        data = np.load(os.path.join(SHARED, name + ".npz"))
        n_in = case["num_inputs"]
        inputs = [data[f"in{k}"] for k in range(n_in)]
        op = case["json_op"]
        attrs = case["json_attrs"]
        train = name not in PREDICT
        sym = getattr(mx.sym, op, None) or getattr(mx.sym._internal, op)
        try:
            probe = sym(*[mx.sym.var(f"in{k}") for k in range(n_in)], **attrs)
            aux = set(probe.list_auxiliary_states())
        except Exception:  # noqa: BLE001
            aux = set()
        arrays = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
        marked = []
        for k, arr in enumerate(arrays):
            if (f"in{k}") not in aux and (op, k) not in NO_GRAD:
                arr.attach_grad()
                marked.append(k)
        fn = getattr(mx.nd, op, None) or getattr(mx.nd._internal, op)
        rng = np.random.RandomState(1000 + i)
        try:
            with mx.autograd.record(train_mode=train):
                out = fn(*arrays, **attrs)
            outs = out if isinstance(out, (list, tuple)) else [out]
            heads = [mx.nd.array(rng.standard_normal(o.shape), dtype=o.dtype) for o in outs]
            mx.autograd.backward(outs, heads, train_mode=train)
            mx.nd.waitall()
        except Exception as e:  # noqa: BLE001
            lines = [ln for ln in str(e).strip().splitlines() if ln.strip() and "Traceback" not in ln
                     and not ln.startswith("  ")]
            index[name] = {"op": op, "error": (lines[0] if lines else str(e))[:300]}
            print("refused", name, index[name]["error"][:100])
            continue
        meta = {"op": op, "attrs": attrs, "train": train, "case": name, "num_inputs": n_in,
                "num_outputs": len(outs)}
        arrs = {"meta": np.array(json.dumps(meta))}
        for k, a in enumerate(inputs):
            arrs[f"input{k}"] = a
        for k, (o, h) in enumerate(zip(outs, heads)):
            arrs[f"output{k}"] = o.asnumpy()
            arrs[f"head_grad{k}"] = h.asnumpy()
        for k in marked:
            arrs[f"grad{k}"] = arrays[k].grad.asnumpy()
        np.savez_compressed(os.path.join(OUT, name + ".npz"), **arrs)
        index[name] = {"op": op, "train": train, "grads": marked}
    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
    print(len(index), "cases")


if __name__ == "__main__":
    main()
