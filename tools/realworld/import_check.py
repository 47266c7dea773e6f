"""import_check.py ROOT [TRANSPILED]: import every module of the four real-world packages, the
original tree and the ``hybridize transpile`` output (default /tmp/rw-run), each module in a fresh
process with tools/realworld's set-up (mxnet aliased to hybridize.runtime, heavy ``__init__``s
stubbed, stand-ins for optional dependencies); prints per package how many import in each tree and
every module that imports from the original but not from the transpiled tree.

    python tools/realworld/import_check.py /tmp/dl/x /tmp/rw-run
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import specs  # noqa: E402

PACKAGES = [("gluoncv2", "gluoncv2", specs.CV2S, {}), ("gluoncv", "gluoncv", specs.CVS2, specs.CVPRE),
            ("gluonnlp/gluonnlp-0.10.0/src", "gluonnlp", specs.NLPS2, specs.NLPPRE),
            ("gluonts", "gluonts", specs.TSS, specs.TSPRE2)]

_RUN = r"""
import sys, types, importlib, json, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {here!r})
import rwload
rwload.alias_mxnet()
for name, src in {prelude!r}.items():
    m = types.ModuleType(name); m.__path__ = []; exec(src, m.__dict__); sys.modules[name] = m
rwload.setup({root!r}, {stubs!r})
ok, bad = [], {{}}
for mod in {mods!r}:
    try:
        importlib.import_module(mod)
        ok.append(mod)
    except BaseException as e:
        bad[mod] = f"{{type(e).__name__}}: {{e}}"[:200]
print("RESULT " + json.dumps([ok, bad]))
"""


def modules(top_dir, top):
    out = []
    for d, dirs, names in os.walk(top_dir):
        dirs[:] = sorted(x for x in dirs if not x.startswith((".", "__")))
        for n in sorted(names):
            if n.endswith(".py"):
                rel = os.path.relpath(os.path.join(d, n), os.path.dirname(top_dir))[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                out.append(".".join(rel))
    return out


def run(root, stubs, prelude, mods, chunk=40):
    ok, bad = [], {}
    for i in range(0, len(mods), chunk):  # a process per chunk: one module's import side effects stay there
        script = _RUN.format(here=HERE, prelude=prelude, root=root, stubs=stubs, mods=mods[i:i + chunk])
        p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=1800)
        line = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
        if not line:
            bad.update({m: "process failed: " + p.stderr.strip()[-200:] for m in mods[i:i + chunk]})
            continue
        o, b = json.loads(line[-1][7:])
        ok += o
        bad.update(b)
    return ok, bad


def main():
    pkgs = sys.argv[1] if len(sys.argv) > 1 else "/tmp/dl/x"
    troot = sys.argv[2] if len(sys.argv) > 2 else "/tmp/rw-run"
    status = 0
    for rel, top, stubs, prelude in PACKAGES:
        mods = modules(os.path.join(pkgs, rel, top), top)
        ok_o, _ = run(os.path.join(pkgs, rel), stubs, prelude, mods)
        ok_t, bad_t = run(troot, stubs, {k: v.replace(os.path.join(pkgs, rel), troot) for k, v in prelude.items()}, mods)
        lost = sorted(set(ok_o) - set(ok_t))
        print(f"{top}: {len(mods)} modules; import from the original tree: {len(ok_o)}; "
              f"from the transpiled tree: {len(ok_t)}; original-only: {len(lost)}")
        for m in lost:
            print(f"  {m}: {bad_t.get(m)}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
