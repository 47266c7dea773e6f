"""``runtime/`` imports as layers: every module imports in a fresh interpreter (one interpreter that
loads them all, recording every import statement executed while modules load), and the graph of
those imports (module -> module it imports, both in ``runtime/``; ``from . import x`` imports the
package too) has no cycle. A cycle is a strongly connected component of more than one module."""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"

RECORD = textwrap.dedent('''
    import builtins, importlib, importlib.util, json, sys
    PKG = "hybridize.runtime"
    edges = set()
    real = builtins.__import__

    def hook(name, globals=None, locals=None, fromlist=(), level=0):
        mod = real(name, globals, locals, fromlist, level)
        importer = (globals or {}).get("__name__") or ""
        if importer.startswith(PKG):
            base = importlib.util.resolve_name("." * level + name, globals.get("__package__")) if level else name
            for t in [base] + [base + "." + f for f in (fromlist or ()) if f != "*"]:
                if t.startswith(PKG) and t != importer and t in sys.modules:
                    edges.add((importer, t))
        return mod

    builtins.__import__ = hook
    failed = {}
    for name in json.loads(sys.argv[1]):
        try:
            importlib.import_module(name)
        except Exception as e:  # reported by the test
            failed[name] = f"{type(e).__name__}: {e}"
    print(json.dumps({"edges": sorted(edges), "failed": failed}))
''')


def runtime_modules() -> list[str]:
    names = []
    for p in sorted(RUNTIME.rglob("*.py")):
        rel = p.relative_to(RUNTIME.parent).with_suffix("")
        parts = ["hybridize"] + list(rel.parts)[1:]
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(["hybridize", "runtime"] + parts[1:]))
    return names


def cycles(edges: list) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []
    sys.setrecursionlimit(10000)

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)
    for v in list(graph):
        if v not in index:
            visit(v)
    return out


def record(modules: list[str]) -> dict:
    run = subprocess.run([sys.executable, "-c", RECORD, json.dumps(modules)], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_every_runtime_module_imports_in_a_fresh_interpreter_and_the_imports_are_layered():
    modules = runtime_modules()
    found = record(modules)
    assert found["failed"] == {}
    found_cycles = [sorted(m.removeprefix("hybridize.runtime.") for m in c) for c in cycles(found["edges"])]
    assert found_cycles == [], (f"import cycles in runtime/: {found_cycles} (`from . import x` imports the package "
                                "too: import the names from `.x`; an import inside a function runs after loading)")


def test_npx_imported_first_has_the_functions_mx_np_installs_into_it():
    # mx.np fills mx.npx (npx.relu, ...) and mx.npx does not import mx.np while loading: the first
    # name not installed yet loads mx.np
    script = ("import hybridize.runtime.numpy_extension as npx, sys\n"
              "assert 'hybridize.runtime.numpy' not in sys.modules\n"
              "print(npx.relu.__name__, npx.random.bernoulli.__name__)")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["relu", "_bernoulli"]
