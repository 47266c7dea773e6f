"""``hybridize graph``: a picture of an exported model's graph (``mx.viz.plot_network``).

    hybridize graph net-symbol.json -o net.svg [--input data=1,3,224,224] [--summary]

The output's extension is the format: ``.dot`` (or ``.gv``) is the DOT source and needs only the
``graphviz`` Python package (``pip install 'hybridize[viz]'``); ``.svg``, ``.png``, ``.pdf`` are
rendered by Graphviz's ``dot`` program. Without ``dot`` the DOT source is written beside the
requested file (``net.dot``) and a note says so. ``--input NAME=SHAPE`` (repeatable) labels the
edges with shapes; ``--node-attr KEY=VALUE`` sets Graphviz node attributes (``fixedsize=false``
lets boxes grow to fit their labels); ``--summary`` also prints ``mx.viz.print_summary``'s table.

Every problem is one line on stderr, ``hybridize graph: <file>: <problem>``, exit status 1 for bad
files (unreadable model, shapes that do not fit, unwritable output), 2 for a malformed command
line. The picture is written atomically (temporary file + rename): never half-written.
"""
from __future__ import annotations

import os
import re

import click

from .cli_support import Fail, command_class, guard, parse_shape
from ..messages import printable

__all__ = ["graph"]

PROG = "hybridize graph"


_Fail = Fail


def parse_shape_spec(spec: str) -> tuple[str, tuple[int, ...]]:
    """``"data=1,3,224,224"`` (or ``(1, 3, 224, 224)``, ``1x3x224x224``) -> ``("data", (1, 3, 224, 224))``."""
    name, sep, text = spec.partition("=")
    if not sep or not name:
        raise _Fail(None, f"--input {spec!r}: expected NAME=SHAPE, e.g. data=1,3,224,224", 2)
    try:
        return name, parse_shape(text)
    except ValueError as e:
        if "positive" in str(e) and "every" in str(e):
            raise _Fail(None, f"--input {spec!r}: every dimension must be positive", 2) from None
        raise _Fail(None, f"--input {spec!r}: expected NAME=SHAPE, e.g. data=1,3,224,224", 2) from None


def _graph(graph: str, output: str, specs: tuple[str, ...], title: str | None, show_weights: bool,
           summary: bool, node_attr_specs: tuple[str, ...] = ()) -> None:
    from . import symbol as _symbol
    from . import visualization as viz
    from .base import HybridizeError, LoadError

    shapes: dict[str, tuple[int, ...]] = {}
    for spec in specs:
        name, dims = parse_shape_spec(spec)
        if name in shapes:
            raise _Fail(None, f"--input {name}=...: given more than once", 2)
        shapes[name] = dims
    node_attrs: dict[str, str] = {}
    for spec in node_attr_specs:
        key, sep, value = spec.partition("=")
        if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise _Fail(None, f"--node-attr {spec!r}: expected KEY=VALUE, e.g. fixedsize=false", 2)
        node_attrs[key] = value
    try:
        sym = _symbol.load(graph)
    except LoadError as e:
        raise _Fail(e.path or graph, e.problem) from None
    inputs = sym.list_inputs()
    for name in shapes:
        if name not in inputs:
            raise _Fail(None, f"--input {name}=...: the model has no input {name!r} "
                              f"(its variables include: {', '.join(inputs[:5])}{', ...' if len(inputs) > 5 else ''})", 2)
    if title is None:
        base = os.path.basename(graph)
        title = base[: -len("-symbol.json")] if base.endswith("-symbol.json") else os.path.splitext(base)[0]
    try:
        if summary:
            viz.print_summary(sym, shape=shapes or None)
        written = viz.write_graph(sym, output, shape=shapes or None, title=title,
                                 hide_weights=not show_weights, node_attrs=node_attrs)
    except viz.GraphvizMissing as e:
        raise _Fail(output, str(e)) from None
    except HybridizeError as e:  # shapes that do not fit the graph, ...
        raise _Fail(graph, str(e)) from None
    except ValueError as e:  # no or unknown extension
        raise _Fail(output, str(e), 2) from None
    except OSError as e:
        raise _Fail(output, f"cannot write: {e.strerror or e}") from None
    except RuntimeError as e:  # dot itself failed
        raise _Fail(output, str(e)) from None
    click.echo(printable(f"wrote {written}"))
    if os.path.abspath(written) != os.path.abspath(output):
        # the format asked for was not produced: say how to get it, and fail (a script must notice)
        raise _Fail(output, f"cannot be rendered without Graphviz (its dot program and the graphviz package: "
                            f"apt-get install graphviz; pip install 'hybridize[viz]'); wrote the DOT source to "
                            f"{written} instead (`dot -T{os.path.splitext(output)[1].lstrip('.').lower()} {written}`)")


@click.command("graph", cls=command_class(PROG), context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("graph", metavar="GRAPH-symbol.json")
@click.option("--output", "-o", required=True, metavar="OUT.svg|.png|.pdf|.dot",
              help="The picture; its extension is the format (.dot needs no Graphviz program).")
@click.option("--input", "-i", "inputs", multiple=True, metavar="NAME=SHAPE",
              help="An input shape (e.g. data=1,3,224,224) to label the edges with shapes.")
@click.option("--title", default=None, help="The graph's name (default: the model's prefix).")
@click.option("--show-weights", is_flag=True, help="Draw edges to weights and biases too (hidden by default).")
@click.option("--node-attr", "node_attrs", multiple=True, metavar="KEY=VALUE",
              help="A Graphviz node attribute (plot_network's node_attrs), e.g. fixedsize=false.")
@click.option("--summary", is_flag=True, help="Also print mx.viz.print_summary's layer table.")
def graph(graph: str, output: str, inputs: tuple[str, ...], title: str | None, show_weights: bool,
          node_attrs: tuple[str, ...], summary: bool) -> None:
    """Draw an exported MXNet model's graph (GRAPH-symbol.json) as mx.viz.plot_network does."""
    guard(PROG, graph, lambda: _graph(graph, output, inputs, title, show_weights, summary, node_attrs))


if __name__ == "__main__":  # pragma: no cover
    graph(prog_name=PROG)
