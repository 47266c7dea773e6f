"""Both ways on real MXNet 1.9.1 (run by ``both_ways.on_mxnet`` with the MXNet interpreter).

Usage: ``python mxnet_both_ways.py MANIFEST.json``. For every case: the original module runs
imperatively and the converted module hybridized, each with the given parameter values (matched by
structural name) and inputs; outputs go to the case's ``.out.npz``. The last stdout line is JSON
``{case id: error text or ""}``: one case failing on MXNet does not hide the others.
"""
import json
import sys
import traceback

import numpy as np


def _block(path, name=None):
    import ast

    text = open(path, encoding="utf-8").read()
    namespace = {"__name__": "mxnet_both_ways_case"}
    exec(compile(text, path, "exec"), namespace)
    if name:
        return namespace[name]
    classes = [n for n in ast.parse(text).body if isinstance(n, ast.ClassDef)]
    names = [c.name for c in classes]
    if "Net" in names:
        return namespace["Net"]
    hybrid = [c.name for c in classes
              if any(isinstance(f, ast.FunctionDef) and f.name == "hybrid_forward" for f in c.body)]
    return namespace[hybrid[0]]


def _flatten(out):
    if isinstance(out, (list, tuple)):
        return [a for item in out for a in _flatten(item)]
    return [out.asnumpy()]


def _run(mx, path, inputs, params, hybridize, name=None):
    net = _block(path, name)()
    net.initialize()
    if hybridize:
        net.hybridize()

    def call():
        args = [[mx.nd.array(v, dtype=v.dtype) for v in a] if isinstance(a, list) else mx.nd.array(a, dtype=a.dtype)
                for a in inputs]
        return _flatten(net(*args))

    call()  # finishes deferred initialization
    found = net._collect_params_with_prefix()
    if sorted(found) != sorted(params):
        raise ValueError("parameters differ: %s vs %s" % (sorted(found), sorted(params)))
    for name, p in found.items():
        p.set_data(mx.nd.array(params[name], dtype=params[name].dtype))
    return call()


def main(manifest):
    import mxnet as mx

    status = {}
    for case in json.load(open(manifest, encoding="utf-8")):
        try:
            with np.load(case["data"]) as data:
                arrays = {k: data[k] for k in data.files}
            params = {k[len("param:"):]: v for k, v in arrays.items() if k.startswith("param:")}
            inputs = []
            for j in range(case["ninputs"]):
                if "listlen:%d" % j in arrays:
                    inputs.append([arrays["input:%d:%d" % (j, k)] for k in range(int(arrays["listlen:%d" % j]))])
                else:
                    inputs.append(arrays["input:%d" % j])
            out = {}
            for which, path, hybrid in (("original", case["before"], False), ("hybridized", case["after"], True)):
                for i, value in enumerate(_run(mx, path, inputs, params, hybrid, case.get("block"))):
                    out["%s:%d" % (which, i)] = value
            np.savez(case["out"], **out)
            status[case["id"]] = ""
        except Exception:  # noqa: BLE001 - reported per case to the caller
            status[case["id"]] = traceback.format_exc()[-2000:]
    print(json.dumps(status))


if __name__ == "__main__":
    main(sys.argv[1])
