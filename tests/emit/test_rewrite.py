"""The rewrite of one module: hybrid_forward -> static graph construction, everything else preserved."""
from __future__ import annotations

import difflib
import textwrap
from pathlib import Path

import numpy as np

from support import REPO

from hybridize.transpile.emit.rewrite import rewrite_source

SEED = REPO / "samples" / "mxnet_style" / "hybrid_net.py"


def _rewrite(tmp_path: Path, source: str, name: str = "model.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return rewrite_source(path.read_text(), str(path), label=name)


def _run(code: str) -> dict:
    namespace: dict = {"__name__": "transpiled_under_test"}
    exec(compile(code, "transpiled_under_test", "exec"), namespace)
    return namespace


def test_seed_hybridnet(tmp_path):
    text = SEED.read_text()
    out = rewrite_source(text, str(SEED), label="samples/mxnet_style/hybrid_net.py")
    assert not out.refused
    code = out.code
    assert code.startswith("# Transpiled by hybridize 0.1.0 (hybridize transpile) from samples/mxnet_style/hybrid_net.py\n")
    assert "from hybridize.runtime import nd\nfrom hybridize.runtime.gluon import nn\n" \
           "from hybridize.runtime.gluon.static_graph import static_graph\n" in code
    assert "    @static_graph\n    def hybrid_forward(self, F, x):\n        print('F: ', F)\n" \
           "        # trace-only, not part of the graph: print('x: ', x)\n" in code
    assert "        # trace-only, not part of the graph: print('hidden: ', x)\n        return self.output(x)\n" in code
    assert out.graph_methods == ["HybridNet.hybrid_forward"] and out.commented == 2
    # everything else is preserved: only insertions, and replacements of the imports and prints
    before, after = text.splitlines(), code.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            assert all(line.startswith(("from mxnet", "import mxnet")) or "print(" in line for line in before[i1:i2])


def test_static_graph_module_runs_and_prints_only_the_build(tmp_path, capsys):
    source = SEED.read_text().split("\nnet = HybridNet()")[0]
    out = rewrite_source(source, str(SEED), label="hybrid_net.py")
    ns = _run(out.code)
    import hybridize.runtime as mx
    net = ns["HybridNet"]()
    net.initialize()
    x = mx.nd.random.normal(shape=(1, 4))
    y1 = net(x).asnumpy()          # imperative call: runs the block's graph (built once)
    y2 = net(x).asnumpy()
    net.hybridize()
    y3 = net(x).asnumpy()
    np.testing.assert_allclose(y1, y2)
    np.testing.assert_allclose(y1, y3, rtol=1e-6)
    printed = capsys.readouterr().out
    assert printed.count("F: ") == 2   # once per graph build (before and after hybridize()), never per call
    assert "x: " not in printed and "hidden: " not in printed


def test_imperative_only_branches_are_resolved(tmp_path):
    out = _rewrite(tmp_path, """\
        import mxnet as mx
        from mxnet import nd
        from mxnet.gluon import HybridBlock


        class Net(HybridBlock):
            def hybrid_forward(self, F, x):
                if F is nd:
                    print(x.asnumpy())
                else:
                    x = x + 1
                if F is mx.sym:
                    x = x * 2
                if not isinstance(x, nd.NDArray):
                    x = x - 3
                elif self.flag:
                    x = x / 0
                return x
        """)
    assert not out.refused and out.resolved_guards == 3
    code = out.code
    statements = "\n".join(l for l in code.splitlines() if not l.strip().startswith("#"))
    assert "asnumpy" not in statements and "if F is" not in statements and "isinstance" not in statements
    assert "        # `if F is nd:` resolved: F is symbol here, so the imperative-only branch is dropped\n" in code
    body = code.split("def hybrid_forward(self, F, x):\n")[1]
    lines = [l.strip() for l in body.splitlines() if l.strip() and not l.strip().startswith("#")]
    assert lines == ["x = x + 1", "x = x * 2", "x = x - 3", "return x"]
    ns = _run(code)
    import hybridize.runtime as mx
    net = ns["Net"]()
    net.initialize()
    y = net(mx.nd.array([1.0, 2.0])).asnumpy()
    np.testing.assert_allclose(y, [1.0, 3.0])


def test_guards_are_the_checkers_verdicts_conjunctions_included(tmp_path):
    """One semantic model: the rewrite resolves exactly the branches the analysis knows while
    tracing. ``F is nd and self.debug`` is false while tracing (imperative-only to the checker, so
    its ``asnumpy()`` is not reported) and is dropped; ``F is mx.sym and self.flag`` depends on the
    flag and stays, with both branches."""
    from hybridize.transpile.check.checker import check_source

    source = """\
        import mxnet as mx
        from mxnet import nd
        from mxnet.gluon import HybridBlock


        class Net(HybridBlock):
            def hybrid_forward(self, F, x):
                if F is nd and self.debug:
                    print(x.asnumpy())
                if F is mx.sym and self.flag:
                    x = x * 2
                else:
                    x = x + 1
                y = x if not (F is nd or self.debug) else x
                return y
        """
    assert check_source(textwrap.dedent(source), "model.py") == []
    out = _rewrite(tmp_path, source)
    assert not out.refused and out.resolved_guards == 1
    body = out.code.split("def hybrid_forward(self, F, x):\n")[1]
    lines = [l.strip() for l in body.splitlines() if l.strip() and not l.strip().startswith("#")]
    assert lines[:4] == ["if F is mx.sym and self.flag:", "x = x * 2", "else:", "x = x + 1"]
    assert "asnumpy" not in "\n".join(lines)


def test_emptied_block_gets_pass_and_build_time_control_flow_stays(tmp_path):
    out = _rewrite(tmp_path, """\
        from mxnet.gluon import nn


        class Net(nn.HybridBlock):
            def __init__(self, debug=False, **kwargs):
                super().__init__(**kwargs)
                self.debug = debug
                self.layers = [nn.Dense(3), nn.Dense(2)]
                for i, layer in enumerate(self.layers):
                    self.register_child(layer)

            def hybrid_forward(self, F, x):
                for layer in self.layers:   # a Python list of blocks: unrolled while building
                    x = layer(x)
                    if self.debug:
                        print("layer out", x)
                return x
        """)
    code = out.code
    assert "            if self.debug:\n                # trace-only, not part of the graph: print(\"layer out\", x)\n" \
           "                pass\n" in code
    assert "for layer in self.layers:   # a Python list of blocks: unrolled while building" in code


def test_checker_errors_refuse_the_module(tmp_path):
    out = _rewrite(tmp_path, """\
        from mxnet.gluon import nn


        class Net(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                if x.sum() > 0:
                    x = x.asnumpy()
                return x
        """)
    assert out.refused and out.code is None
    assert {f.code for f in out.findings} == {"HY001", "HY004"}


def test_shebang_coding_future_and_docstring_stay_first(tmp_path):
    out = _rewrite(tmp_path, '''\
        #!/usr/bin/env python
        # -*- coding: utf-8 -*-
        """Docstring."""
        from __future__ import annotations
        import mxnet.gluon
        static_graph = 1


        class Net(mxnet.gluon.HybridBlock):
            def hybrid_forward(self, F, x):
                return F.relu(x)
        ''')
    lines = out.code.splitlines()
    assert lines[:3] == ["#!/usr/bin/env python", "# -*- coding: utf-8 -*-",
                         "# Transpiled by hybridize 0.1.0 (hybridize transpile) from model.py"]
    assert '"""Docstring."""\nfrom __future__ import annotations\n' \
           "import hybridize.runtime.gluon, hybridize.runtime as mxnet\n" \
           "from hybridize.runtime.gluon.static_graph import static_graph as _hybridize_static_graph\n" in out.code
    assert "    @_hybridize_static_graph\n    def hybrid_forward" in out.code
    ns = _run(out.code)
    import hybridize.runtime as mx
    net = ns["Net"]()
    np.testing.assert_allclose(net(mx.nd.array([-1.0, 2.0])).asnumpy(), [0.0, 2.0])


def test_tensor_stored_on_self_is_kept_and_annotated(tmp_path):
    out = _rewrite(tmp_path, """\
        from mxnet.gluon import nn


        class Cell(nn.HybridBlock):
            def hybrid_forward(self, F, x):
                out = F.relu(x)
                self._prev = out
                return out
        """)
    assert "        # note (HY008): runs once, while the graph is built; it keeps a Symbol, not a value\n" \
           "        self._prev = out\n" in out.code


def test_output_is_deterministic(tmp_path):
    text = SEED.read_text()
    a = rewrite_source(text, str(SEED), label="x.py").code
    b = rewrite_source(text, str(SEED), label="x.py").code
    assert a == b


def test_source_segments_match_ast_on_crlf_form_feed_and_non_ascii():
    """The pre-pass slices statements from lines split once (``ast.get_source_segment`` re-splits the
    whole source per call: quadratic, ~5 s for gluon/block.py); the slices must be the stdlib's."""
    import ast

    from hybridize.transpile.emit.rewrite import _Segments

    text = ("# é ünïcode ✓\r\nx = 'ä' + 'b'  # ß\r\n\x0c\r\ndef f(a,\r\n      b='Ω'):\r\n    return (a +\r\n"
            "            b)\ry = [1,\r  2]\nclass C:\n    def g(self): print('→', 1); return {\n        'k': 2}\n")
    tree = ast.parse(text)
    segment = _Segments(text)
    nodes = [n for n in ast.walk(tree) if hasattr(n, "lineno")]
    assert len(nodes) > 20
    for node in nodes:
        assert segment(node) == ast.get_source_segment(text, node), ast.dump(node)


def test_trace_only_statement_found_after_non_ascii_and_crlf(tmp_path):
    path = tmp_path / "model.py"
    path.write_bytes(textwrap.dedent("""\
        # -*- coding: utf-8 -*-
        from mxnet.gluon import nn


        class Net(nn.HybridBlock):
            \"\"\"Größe → Ω.\"\"\"
            def hybrid_forward(self, F, x):
                y = F.relu(x)  # ünïcode
                print('ÿ', y)
                return y
        """).replace("\n", "\r\n").encode("utf-8"))
    out = rewrite_source(path.read_bytes().decode("utf-8"), str(path), label="model.py")
    assert out.commented == 1
    assert "# trace-only, not part of the graph: print('ÿ', y)\r\n" in out.code
