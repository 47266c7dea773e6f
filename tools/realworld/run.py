"""run.py MODE NAME...   MODE: ours (original source on hybridize.runtime via an mxnet alias),
transpiled (hybridize transpile output, original modules as fallback), mxnet (real MXNet 1.9.1)."""
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from paths import HERE, PKGS, OUT_DIR, TRANSPILED, MXNET_PYTHON  # noqa: E402,F401

import sys
import os
import importlib
import traceback
import json
import time
import numpy as np
import rwload
for _n, _t in (("int", int), ("float", float), ("bool", bool), ("object", object)):
    if not hasattr(np, _n):
        setattr(np, _n, _t)  # the packages target numpy < 1.24
from specs import SPECS

OUT = OUT_DIR
os.makedirs(OUT, exist_ok=True)

def flat(y):
    if isinstance(y, (list, tuple)):
        r = []
        for e in y:
            r += flat(e)
        return r
    return [y.asnumpy()]

def setup(mode, spec):
    root = spec["root"]
    stubs = spec.get("stubs", [])
    for modname, src in spec.get("prelude", {}).items():
        import types as _types
        if mode != "mxnet":
            rwload.alias_mxnet()
        m = _types.ModuleType(modname)
        m.__path__ = []
        exec(src, m.__dict__)
        if "." in modname and modname.rpartition(".")[0] in sys.modules:
            setattr(sys.modules[modname.rpartition(".")[0]], modname.rpartition(".")[2], m)
        sys.modules[modname] = m
    if mode == "transpiled":
        troot = spec.get("troot")
        rwload.setup(troot, [], True)
        # package dirs: transpiled first, original as fallback (refused modules)
        rwload.fallback(troot, root, sorted({s.split(".")[0] for s in stubs}))
        for s in stubs:
            rwload.stub_packages(troot, [s])
            rel = s.split(".")
            sys.modules[s].__path__ = [os.path.join(troot, *rel), os.path.join(root, *rel)]
    else:
        rwload.setup(root, stubs, mxnet_alias=(mode != "mxnet"))

def build(spec):
    mod = importlib.import_module(spec["module"])
    if "build" in spec:
        import mxnet as mx
        return eval(spec["build"], {"m": mod, "mx": mx})
    ctor = getattr(mod, spec["ctor"])
    return ctor(*spec.get("args", ()), **spec.get("kwargs", {}))

def inputs(spec, mx, net=None):
    rs = np.random.RandomState(0)
    if spec["inputs"] == "auto":
        size = getattr(net, "in_size", (224, 224))
        if isinstance(size, int):
            size = (size, size)
        ch = getattr(net, "in_channels", 3)
        return _inputs([(1, ch) + tuple(size)], mx, rs)
    return _inputs(spec["inputs"], mx, rs)

def _inputs(specs, mx, rs):
    xs = []
    for s in specs:
        if s is None:
            xs.append(None)
        elif isinstance(s, list):
            xs.append(_inputs(s, mx, rs))
        elif isinstance(s, dict) and "const" in s:
            xs.append(mx.nd.array(np.full(s["shape"], s["const"], dtype="float32")))
        elif isinstance(s, dict) and "value" in s:
            xs.append(mx.nd.array(np.array(s["value"], dtype=s.get("dtype", "float32")), dtype=s.get("dtype", "float32")))
        elif isinstance(s, dict):
            if s.get("int"):
                xs.append(mx.nd.array(rs.randint(0, s["int"], size=s["shape"]).astype(s.get("dtype", "float32")), dtype=s.get("dtype", "float32")))
            else:
                xs.append(mx.nd.array(rs.uniform(-1, 1, size=s["shape"]).astype("float32")))
        else:
            xs.append(mx.nd.array(rs.uniform(-1, 1, size=s).astype("float32")))
    return xs

def perturb(net, mx):
    rs = np.random.RandomState(1)
    for name, p in sorted(net.collect_params().items()):
        shp = p.shape
        if name.endswith("running_var") or name.endswith("moving_var") or name.endswith("gamma"):
            p.set_data(mx.nd.array(rs.uniform(0.5, 1.5, size=shp).astype("float32")))
        elif name.endswith("running_mean") or name.endswith("moving_mean") or name.endswith("beta") or name.endswith("bias"):
            p.set_data(mx.nd.array(rs.normal(0, 0.1, size=shp).astype("float32")))

def close(a, b, rtol=1e-4):
    if a.shape != b.shape:
        return False, f"shape {a.shape} vs {b.shape}"
    if a.dtype.kind in "iub":
        d = np.abs(a.astype(np.int64) - b.astype(np.int64)).max() if a.size else 0
        return d == 0, f"maxdiff {d}"
    scale = float(np.abs(b).max()) if b.size else 0.0
    d = float(np.abs(a - b).max()) if a.size else 0.0
    ok = np.allclose(a, b, rtol=rtol, atol=rtol * max(scale, 1e-6), equal_nan=True)
    return bool(ok), f"maxdiff {d:.3g} (scale {scale:.3g})"

def run(mode, spec):
    import mxnet as mx
    name = spec["name"]
    res = {"name": name, "mode": mode}
    net = build(spec)
    xs = inputs(spec, mx, net)
    if spec.get("fresh_inputs"):    # the block mutates its (list) inputs: the same values every call
        def fresh():
            return inputs(spec, mx, net)
    else:
        def fresh():
            return xs
    pfile = f"{OUT}/{name}.params"
    t0 = time.time()
    if mode == "ours":
        mx.random.seed(0)
        net.initialize(getattr(mx.init, spec["init"])()) if spec.get("init") else net.initialize()
        net(*fresh())  # deferred init
        perturb(net, mx)
        net.save_parameters(pfile)
    else:
        net.load_parameters(pfile)
    y_imp = flat(net(*fresh()))
    res["t_imp"] = time.time() - t0
    if spec.get("fresh_hybrid"):  # the block caches F-typed state on its first call
        net = build(spec)
        net.load_parameters(pfile)
    net.hybridize(**spec.get("hybridize", {}))
    y_hyb = flat(net(*fresh()))
    y_hyb2 = flat(net(*fresh()))
    cop = getattr(net, "_cached_op", None)
    res["graph_ran"] = cop is not None and (mode == "mxnet" or bool(getattr(cop, "programs", None)))
    res["t_all"] = time.time() - t0
    res["nout"] = len(y_imp)
    res["shapes"] = [list(y.shape) for y in y_imp]
    cmp = [close(a, b) for a, b in zip(y_hyb, y_imp)] + [close(a, b) for a, b in zip(y_hyb2, y_imp)]
    res["imp_eq_hyb"] = all(c[0] for c in cmp) and len(y_hyb) == len(y_imp)
    res["imp_vs_hyb"] = "; ".join(c[1] for c in cmp[:len(y_imp)])
    np.savez(f"{OUT}/{name}.{mode}.npz", *y_imp)
    np.savez(f"{OUT}/{name}.{mode}.hyb.npz", *y_hyb)
    if mode != "ours" and os.path.exists(f"{OUT}/{name}.ours.npz"):
        with np.load(f"{OUT}/{name}.ours.npz") as z:
            ref = [z[f"arr_{i}"] for i in range(len(z.files))]
        cmp = [close(a, b) for a, b in zip(ref, y_imp)]
        res["eq_ours"] = all(c[0] for c in cmp) and len(ref) == len(y_imp)
        res["vs_ours"] = "; ".join(c[1] for c in cmp)
    return res

if __name__ == "__main__":
    mode = sys.argv[1]
    names = sys.argv[2:]
    spec = next(s for s in SPECS if s["name"] == names[0])
    setup(mode, spec)
    for n in names:
        spec = next(s for s in SPECS if s["name"] == n)
        try:
            res = run(mode, spec)
        except Exception as e:
            res = {"name": n, "mode": mode, "error": f"{type(e).__name__}: {e}"[:2000],
                   "tb": traceback.format_exc()[-3000:]}
        print("RESULT " + json.dumps(res))
        sys.stdout.flush()
