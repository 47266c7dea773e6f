import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from paths import HERE, PKGS, OUT_DIR, TRANSPILED, MXNET_PYTHON  # noqa: E402,F401
import json
import sys
sys.path.insert(0, HERE)
from specs import SPECS
res = {m: {} for m in ("ours", "mxnet", "transpiled")}
for m in res:
    for l in open(f"{OUT_DIR}/results-{m}.jsonl"):
        d = json.loads(l); res[m][d["name"]] = d
def shp(s):
    ins = s["inputs"]
    def f(x):
        if x is None: return "None"
        if isinstance(x, list): return "[" + ", ".join(f(e) for e in x) + "]"
        if isinstance(x, dict): return "x".join(map(str, x.get("shape", (len(x.get("value", [])),))))
        return "x".join(map(str, x))
    return ", ".join(f(x) for x in ins) if isinstance(ins, list) else ins
def rel(vs):
    import re
    worst = 0.0
    for a, b in re.findall(r"maxdiff ([0-9.e+-]+|nan|inf) \(scale ([0-9.e+-]+|inf)\)", vs or ""):
        try:
            a, b = float(a), float(b)
            if b and b != float("inf"): worst = max(worst, a / b)
        except ValueError: pass
    return f"{worst:.0e}" if worst else "0"
print("model | module:constructor | input | imperative == hybridized | transpiled == ours | ours == MXNet")
for s in SPECS:
    n = s["name"]
    if n.startswith("sweep."): continue
    o, x, t = res["ours"].get(n, {}), res["mxnet"].get(n, {}), res["transpiled"].get(n, {})
    if not o: continue
    oe = "error" in o
    row = [n, s["module"] + (":" + s["ctor"] if s.get("ctor") else ""), shp(s),
           "ERR" if oe else ("yes" if o.get("imp_eq_hyb") else "NO") + f" ({rel(o.get('imp_vs_hyb'))})",
           "ERR " + t.get("error", "")[:60] if "error" in t else (("yes" if t.get("eq_ours") and t.get("imp_eq_hyb") else "NO") + f" ({rel(t.get('vs_ours'))})" if t else "-"),
           "ERR " + x.get("error", "")[:60] if "error" in x else (("yes" if x.get("eq_ours") else "NO") + f" ({rel(x.get('vs_ours'))})" if x else "-"),
           ]
    if oe: row.append(o["error"][:100])
    print(" | ".join(row))
