"""``mx.viz`` and ``hybridize graph``: MXNet 1.9.1's table and picture of a graph, from our inference.

The expected outputs were recorded from MXNet 1.9.1 itself (``data/record_viz_mxnet.py``) on
three model fixtures and a handmade graph (grouped no-bias convolution, LeakyReLU, a split
whose second output is used, Embedding, Concat, BatchNorm, SoftmaxOutput).
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import hybridize.runtime as mx
from support import FIXTURES, require_shared

HERE = Path(__file__).resolve().parent
RECORDED = json.loads((HERE / "data" / "viz_mxnet.json").read_text())
CASES = sorted(RECORDED["cases"])
MLP = FIXTURES / "models" / "seed_mlp" / "model-symbol.json"


def _case(name: str) -> tuple:
    c = RECORDED["cases"][name]
    return mx.sym.load_json(c["symbol"]), {k: tuple(v) for k, v in c["shape"].items()}, c


def _printed(fn, *args, **kwargs) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(*args, **kwargs)
    return buf.getvalue()


def _dot_statements(source: str) -> list[tuple]:
    """DOT source -> its statements as tuples of unquoted tokens (graphviz versions quote differently)."""
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|->|[\[\]{}=]|[^\s\[\]{}="]+', source)
    statements, current = [], []
    for tok in tokens:
        tok = tok[1:-1].replace('\\"', '"') if tok.startswith('"') else tok
        current.append(tok)
        if tok in ("]", "{", "}"):
            statements.append(tuple(current))
            current = []
    return statements + ([tuple(current)] if current else [])


# -- print_summary -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", CASES)
def test_print_summary_prints_mxnets_table(name: str) -> None:
    sym, shape, c = _case(name)
    assert _printed(mx.viz.print_summary, sym, shape=shape) == c["summary"]


@pytest.mark.parametrize("name", CASES)
def test_print_summary_without_shapes_and_with_absolute_columns(name: str) -> None:
    sym, shape, c = _case(name)
    assert _printed(mx.viz.print_summary, sym) == c["summary_noshape"]
    assert _printed(mx.viz.print_summary, sym, shape=shape, line_length=80,
                    positions=[30, 50, 60, 80]) == c["summary_narrow"]


def test_print_summary_counts_parameters_of_a_fresh_gluon_export(tmp_path) -> None:
    """Counts come from inferred shapes: an MLP on 20 features has 20*16+16 + 16*3+3 parameters."""
    from hybridize.runtime.gluon import nn

    net = nn.HybridSequential()
    net.add(nn.Dense(16, activation="relu"), nn.Dense(3))
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((4, 20)))
    net.export(str(tmp_path / "mlp"))
    text = _printed(mx.viz.print_summary, mx.sym.load(str(tmp_path / "mlp-symbol.json")), shape={"data": (4, 20)})
    assert "Total params: 387\n" in text
    assert re.search(r"^dense\d+_fwd\(FullyConnected\) +16 +336 +data +$", text, re.M)


def test_print_summary_refuses_what_is_not_a_symbol() -> None:
    with pytest.raises(TypeError, match="symbol must be Symbol"):
        mx.viz.print_summary("data")


# -- plot_network --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", CASES)
def test_plot_network_draws_mxnets_graph(name: str) -> None:
    pytest.importorskip("graphviz")
    sym, shape, c = _case(name)
    dtype = {k: np.float32 for k in shape}
    dot = mx.viz.plot_network(sym)
    assert type(dot).__name__ == "Digraph" and dot.format == "pdf" and dot.name == "plot"
    assert _dot_statements(dot.source) == _dot_statements(c["dot"])
    labelled = mx.viz.plot_network(sym, title="net", shape=shape, dtype=dtype, node_attrs={"fixedsize": "false"})
    assert _dot_statements(labelled.source) == _dot_statements(c["dot_shape"])
    weights = mx.viz.plot_network(sym, hide_weights=False, save_format="svg")
    assert weights.format == "svg"
    assert _dot_statements(weights.source) == _dot_statements(c["dot_weights"])


def test_plot_network_without_the_graphviz_package(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "graphviz", None)
    sym, _, _ = _case("seed_mlp")
    with pytest.raises(ImportError, match="requires graphviz"):
        mx.viz.plot_network(sym)


def test_plot_network_shapes_that_do_not_fit_raise() -> None:
    pytest.importorskip("graphviz")
    sym, _, _ = _case("handmade")
    with pytest.raises(mx.base.ShapeError):
        mx.viz.plot_network(sym, shape={"data": (2, 5, 8, 8), "tokens": (2, 3)})


def test_mx_viz_is_reachable_from_transpiled_code(tmp_path) -> None:
    """``import mxnet as mx`` becomes ``hybridize.runtime``: ``mx.viz`` and ``mxnet.visualization`` resolve."""
    from hybridize.transpile.emit.rewrite import rewrite_source

    src = ("import mxnet as mx\nfrom mxnet import visualization\n"
           "net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc')\n"
           "mx.viz.print_summary(net, shape={'data': (1, 3)})\n"
           "assert visualization.print_summary is mx.viz.print_summary\n")
    path = tmp_path / "show.py"
    path.write_text(src)
    code = rewrite_source(src, str(path)).code
    assert "import hybridize.runtime as mx" in code
    text = _printed(exec, compile(code, str(path), "exec"), {"__name__": "show"})
    assert re.search(r"^fc\(FullyConnected\) +4 +16 +data +$", text, re.M)


# -- hybridize graph -------------------------------------------------------------------------------
def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()


def graph(*args) -> "object":
    from hybridize.cli import main

    return _runner().invoke(main, ["graph", *map(str, args)])


def fails(code: int, *args) -> str:
    r = graph(*args)
    assert r.exit_code == code, (r.exit_code, r.stdout, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr
    return r.stderr.strip()


def test_graph_writes_the_dot_source_without_the_dot_program(tmp_path, monkeypatch) -> None:
    pytest.importorskip("graphviz")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no dot, whatever the machine has
    require_shared()
    r = graph(MLP, "-o", tmp_path / "mlp.dot", "--input", "data=2,512")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == f"wrote {tmp_path / 'mlp.dot'}\n"
    statements = _dot_statements((tmp_path / "mlp.dot").read_text())
    assert statements[0] == ("digraph", "model", "{")
    assert ("dense0_fwd", "->", "data", "[", "label", "=", "512", "arrowtail", "=", "open", "dir", "=", "back", "]") \
        in statements


def test_graph_falls_back_to_dot_source_when_dot_is_absent_and_fails(tmp_path, monkeypatch) -> None:
    pytest.importorskip("graphviz")
    require_shared()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    r = graph(MLP, "-o", tmp_path / "mlp.svg")
    assert r.exit_code == 1  # the picture asked for was not made
    assert not (tmp_path / "mlp.svg").exists()
    assert (tmp_path / "mlp.dot").read_text().startswith("digraph model {")
    assert r.stdout == f"wrote {tmp_path / 'mlp.dot'}\n"
    assert "cannot be rendered without Graphviz" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_graph_writes_dot_without_the_graphviz_package(tmp_path, monkeypatch) -> None:
    require_shared()
    monkeypatch.setitem(sys.modules, "graphviz", None)
    r = graph(MLP, "-o", tmp_path / "mlp.dot", "--input", "data=2,512")
    assert r.exit_code == 0, r.stderr
    statements = _dot_statements((tmp_path / "mlp.dot").read_text())
    assert statements[0] == ("digraph", "model", "{")
    assert ("dense0_fwd", "->", "data", "[", "dir", "=", "back", "arrowtail", "=", "open", "label", "=", "512", "]") \
        in statements
    if shutil.which("dot"):  # the text is DOT that Graphviz itself reads
        assert subprocess.run(["dot", "-Tsvg", str(tmp_path / "mlp.dot")], capture_output=True).returncode == 0
    r = graph(MLP, "-o", tmp_path / "mlp.svg")
    assert r.exit_code == 1 and not (tmp_path / "mlp.svg").exists() and (tmp_path / "mlp.dot").exists()


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz's dot program is not installed (apt-get install graphviz); "
                           "the .dot fallback is tested without it")
def test_graph_renders_svg_with_dot(tmp_path) -> None:
    pytest.importorskip("graphviz")
    require_shared()
    r = graph(MLP, "-o", tmp_path / "mlp.svg", "--input", "data=(1, 512)", "--node-attr", "fixedsize=false",
              "--summary")
    assert r.exit_code == 0, r.stderr
    assert "Total params: 164482" in r.stdout
    svg = (tmp_path / "mlp.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for text in ("FullyConnected", "256", "relu", "data"):
        assert f">{text}</text>" in svg


def test_graph_bad_input_is_one_line(tmp_path) -> None:
    pytest.importorskip("graphviz")
    require_shared()
    assert fails(2, MLP, "-o", tmp_path / "m.dot", "--input", "data=1,x") == \
        "hybridize graph: --input 'data=1,x': expected NAME=SHAPE, e.g. data=1,3,224,224"
    assert fails(2, MLP, "-o", tmp_path / "m.dot", "--input", "label=1,2").startswith(
        "hybridize graph: --input label=...: the model has no input 'label'")
    assert fails(2, MLP, "-o", tmp_path / "m.xyz") == \
        f"hybridize graph: {tmp_path / 'm.xyz'}: unknown picture format .xyz (.svg, .png, .pdf or .dot)"
    assert fails(2, MLP) == "hybridize graph: Missing option '--output' / '-o'. (see hybridize graph --help)"
    assert fails(1, tmp_path / "nope-symbol.json", "-o", tmp_path / "m.dot") == \
        f"hybridize graph: {tmp_path / 'nope-symbol.json'}: no such file"
    assert fails(1, MLP, "-o", tmp_path / "no" / "dir" / "m.dot").startswith(
        f"hybridize graph: {tmp_path / 'no' / 'dir' / 'm.dot'}: cannot write")
    assert not (tmp_path / "no").exists()
    assert list(tmp_path.iterdir()) == []


def test_graph_shapes_that_do_not_fit_name_the_model(tmp_path) -> None:
    pytest.importorskip("graphviz")
    sym, _, _ = _case("handmade")
    sym.save(str(tmp_path / "h-symbol.json"))
    err = fails(1, tmp_path / "h-symbol.json", "-o", tmp_path / "h.dot", "--input", "data=2,5,8,8",
                "--input", "tokens=2,3")
    assert err.startswith(f"hybridize graph: {tmp_path / 'h-symbol.json'}: ")
    assert not (tmp_path / "h.dot").exists()


def test_readme_picture_is_what_the_readme_command_makes(tmp_path) -> None:
    """The committed SVG's graph (not its layout coordinates) is the one the README's command draws."""
    pytest.importorskip("graphviz")
    require_shared()
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    cmd = re.search(r"^hybridize graph (\S+) (.*) -o (docs/\S+\.svg)$", readme, re.M)
    assert cmd, "README shows the hybridize graph command that made its picture"
    svg = Path(__file__).resolve().parents[2] / cmd.group(3)
    assert svg.is_file() and f"]({cmd.group(3)})" in readme
    monkey = graph(FIXTURES.parent.parent / cmd.group(1).split("shared/", 1)[1], *cmd.group(2).split(),
                   "-o", tmp_path / "again.dot")
    assert monkey.exit_code == 0, monkey.stderr
    titles = re.findall(r"<title>(.*?)</title>", svg.read_text())
    nodes = [s[0] for s in _dot_statements((tmp_path / "again.dot").read_text()) if len(s) > 2 and s[1] == "["]
    assert [t for t in titles if "&#45;&gt;" not in t][1:] == nodes
