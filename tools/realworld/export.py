"""export.py mxnet NAME...: MXNet exports the hybridized model; export.py ours NAME...: our SymbolBlock.imports runs it."""
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from paths import HERE, PKGS, OUT_DIR, TRANSPILED, MXNET_PYTHON  # noqa: E402,F401

import sys
import os
import json
import traceback
sys.path.insert(0, HERE)
import numpy as np
import run as R
from specs import SPECS
mode = sys.argv[1]
os.makedirs(f"{OUT_DIR}/exp", exist_ok=True)
spec0 = next(s for s in SPECS if s["name"] == sys.argv[2])
if mode == "mxnet":
    R.setup("mxnet", spec0)
elif mode == "ours-export":
    R.setup("ours", spec0)
elif mode == "mxnet-import":
    pass
else:
    import rwload; rwload.alias_mxnet()
import mxnet as mx
for name in sys.argv[2:]:
    spec = next(s for s in SPECS if s["name"] == name)
    prefix = f"{OUT_DIR}/exp/{name}"
    try:
        if mode in ("mxnet", "ours-export"):
            if mode == "ours-export":
                prefix += ".ours"
            net = R.build(spec)
            xs = R.inputs(spec, mx, net)
            net.load_parameters(f"{R.OUT}/{name}.params")
            net.hybridize()
            net(*[x for x in xs])
            net.export(prefix)
            print("EXPORTED", name)
        else:
            if mode == "mxnet-import":
                prefix += ".ours"
            graph = json.load(open(prefix + "-symbol.json"))
            params = mx.nd.load(prefix + "-0000.params")
            pnames = {k.split(":", 1)[1] for k in params}
            inputs = [graph["nodes"][i]["name"] for i in graph["arg_nodes"] if graph["nodes"][i]["name"] not in pnames]
            inputs.sort(key=lambda s: int(s[4:]) if s.startswith("data") and s[4:].isdigit() else -1)
            blk = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", inputs, prefix + "-0000.params")
            xs = R.inputs(spec, mx)
            flat = []
            def fl(v):
                if isinstance(v, list):
                    for e in v: fl(e)
                elif v is not None: flat.append(v)
            fl(xs)
            y = R.flat(blk(*flat))
            with np.load(f"{R.OUT}/{name}.{'ours' if mode == 'mxnet-import' else 'mxnet'}.npz") as z:
                ref = [z[f"arr_{i}"] for i in range(len(z.files))]
            cmp = [R.close(a, b) for a, b in zip(y, ref)]
            print("IMPORTED", name, all(c[0] for c in cmp) and len(y) == len(ref), "; ".join(c[1] for c in cmp))
    except Exception as e:
        print("FAIL", name, f"{type(e).__name__}: {e}"[:400])
        traceback.print_exc(limit=3)
