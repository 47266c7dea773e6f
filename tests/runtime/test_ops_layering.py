"""``runtime/ops`` is the bottom layer: the registry and the kernels import nothing above them (not the
graph compiler, not the front ends nd/sym/gluon/operator), so every upper layer may build on them.
Control flow reaches the graph side only through its subgraph values (``graph/subgraph.py``), Custom
through the host ``runtime/operator.py`` installs."""
import ast
from pathlib import Path

import hybridize.runtime.ops as ops_pkg

RUNTIME = Path(ops_pkg.__file__).resolve().parents[1]
# leaf modules of the runtime the ops may use: errors, and the training/recording mode
ALLOWED_OUTSIDE = {"hybridize.runtime.base", "hybridize.runtime.autograd"}


def _imports(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports (module level and inside functions), absolute."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
                # `from .. import autograd`: the names may be modules
                out.update(f"{mod}.{a.name}" if not node.module else mod for a in node.names)
            else:
                out.add(node.module)
    return out


def test_ops_import_nothing_above_them():
    bad = {}
    for path in sorted((RUNTIME / "ops").glob("*.py")):
        for mod in _imports(path, "hybridize.runtime.ops"):
            if mod.startswith("hybridize") and not mod.startswith("hybridize.runtime.ops") \
                    and mod not in ALLOWED_OUTSIDE:
                bad.setdefault(path.name, []).append(mod)
    assert bad == {}


def test_the_allowed_leaves_are_leaves():
    """They import the runtime's errors at most, and the package's message helpers (``hybridize.messages``,
    which imports nothing of the package)."""
    assert not {m for m in _imports(RUNTIME.parent / "messages.py", "hybridize") if m.startswith("hybridize")}
    for mod in ALLOWED_OUTSIDE:
        path = RUNTIME / (mod.rsplit(".", 1)[1] + ".py")
        assert {m for m in _imports(path, "hybridize.runtime") if m.startswith("hybridize")} \
            <= {"hybridize.runtime.base", "hybridize.messages"}, mod


def test_control_flow_and_custom_run_through_the_upper_layers():
    """The hooks are in place once the upper layers are imported (as any use of them does)."""
    from hybridize.runtime import operator  # noqa: F401  (installs the Custom host)
    from hybridize.runtime.graph.subgraph import Subgraph
    from hybridize.runtime.ops import control_flow, custom
    assert custom._HOST is not None
    assert all(hasattr(Subgraph, k) for k in control_flow.SUBGRAPH_API if k not in ("graph", "inputs"))
