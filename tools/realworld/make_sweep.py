"""make_sweep.py: sweep.json = the first model constructor in ``__all__`` of every imgclsmob model file
(run as specs ``sweep.<module>.<ctor>`` at the model's own ``in_size``)."""
import ast
import json
import os

from paths import HERE, PKGS

root = os.path.join(PKGS, "gluoncv2", "gluoncv2", "models")
out = []
for f in sorted(os.listdir(root)):
    if not f.endswith(".py") or f in ("__init__.py", "common.py"):
        continue
    tree = ast.parse(open(os.path.join(root, f)).read())
    names, funcs = None, set()
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in n.targets):
            names = [e.value for e in n.value.elts if isinstance(e, ast.Constant)]
        if isinstance(n, ast.FunctionDef) and not n.name.startswith(("_", "get_")):
            funcs.add(n.name)
    cands = [a for a in names or [] if a in funcs and a[0].islower()]
    if cands:
        out.append({"mod": f[:-3], "ctor": cands[0]})
json.dump(out, open(os.path.join(HERE, "sweep.json"), "w"), indent=0)
print(len(out), "model files")
