"""``mx.viz``: MXNet 1.9.1's ``print_summary`` and ``plot_network`` over our symbols.

Both read the symbol as MXNet does, through its JSON (``symbol.tojson()``), and take shapes and
dtypes from our inference (``get_internals().infer_shape`` / ``infer_type``), so the table and
the graph match MXNet's line for line, quirks included:

* ``print_summary`` lists operator nodes (and the first node, usually ``data``); a node's
  "Previous Layer" column names its operator inputs plus any input whose node id is in
  ``set(heads[0])`` (MXNet's test: in practice node 0, the data variable). Parameters are counted
  for Convolution, FullyConnected, BatchNorm (with shapes) and Embedding from the input widths.
* ``plot_network`` returns a ``graphviz.Digraph`` (the optional ``graphviz`` package:
  ``pip install hybridize[viz]``); weights (``*_weight``, ``*_bias``, ``*_gamma``, ...) are hidden,
  or, with ``hide_weights=False``, left as edges to undeclared nodes, as MXNet draws them. Edge
  labels are the producer's output shape without the batch axis (for an op with a ``num_outputs``
  attribute, its last output's, as MXNet labels them).

Rendering the Digraph (``.render()``, ``.pipe()``) needs Graphviz's ``dot`` program;
:func:`write_graph` (used by ``hybridize graph``) writes the DOT source instead when asked for
``.dot`` and says so when ``dot`` is missing.

This module follows ``python/mxnet/visualization.py`` of Apache MXNet 1.9.1 (Apache-2.0).
"""
from __future__ import annotations

import copy
import json
import os
import re
import shutil
import warnings
from typing import Any, Mapping, Sequence

from .symbol import Symbol

__all__ = ["print_summary", "plot_network", "write_graph", "GraphvizMissing"]

# parameter-like variable names MXNet hides in pictures
_WEIGHT_SUFFIXES = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean",
                    "_running_var", "_running_mean")
# MXNet's fill colours (a ColorBrewer Set3 subset), by node kind
_COLORS = ("#8dd3c7", "#fb8072", "#ffffb3", "#bebada", "#80b1d3", "#fdb462", "#b3de69", "#fccde5")


class GraphvizMissing(RuntimeError):
    """The graphviz Python package or its ``dot`` program is not installed."""


def _digits(text: str) -> list[str]:
    """``"(3, 3)"`` -> ``["3", "3"]``: MXNet's shape-string reading."""
    return re.findall(r"\d+", text)


def _internal_dict(symbol: Symbol, shape: Mapping[str, Any] | None, dtype: Mapping[str, Any] | None
                   ) -> tuple[dict | None, dict | None]:
    """Output name of every internal entry -> its shape / dtype (None when not asked for)."""
    internals = symbol.get_internals()
    names = internals.list_outputs()
    shapes = types = None
    if shape is not None:
        _, out_shapes, _ = internals.infer_shape(**shape)
        if out_shapes is None:  # pragma: no cover - our infer_shape raises instead
            raise ValueError("Input shape is incomplete")
        shapes = dict(zip(names, (tuple(s) for s in out_shapes)))
    if dtype is not None:
        _, out_types, _ = internals.infer_type(**dtype)
        types = dict(zip(names, out_types))
    return shapes, types


def print_summary(symbol: Symbol, shape: Mapping[str, Any] | None = None, line_length: int = 120,
                  positions: Sequence[float] = (.44, .64, .74, 1.)) -> None:
    """Prints MXNet's layer table of ``symbol``: layer (type), output shape (without the batch
    axis; needs ``shape``, ``{input name: shape}``), parameter count, previous layer(s).

    ``positions`` are the columns' right edges, as fractions of ``line_length`` (or absolute
    character positions when the last one exceeds 1)."""
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be Symbol")
    shape_dict, _ = _internal_dict(symbol, shape, None)
    show_shape = shape_dict is not None
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    heads = set(conf["heads"][0])  # MXNet's set of [node id, index, version] of the first head
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    else:
        positions = [int(p) for p in positions]

    def print_row(fields: Sequence[Any]) -> None:
        line = ""
        for field, end in zip(fields, positions):
            line = (line + str(field))[:end]
            line += " " * (end - len(line))
        print(line)

    def layer(node: dict, out_shape: Sequence[int]) -> int:
        op = node["op"]
        attrs = node.get("attrs", {})
        previous: list[str] = []
        pre_filter = 0
        if op != "null":
            for item in node["inputs"]:
                source = nodes[item[0]]
                if source["op"] != "null" or item[0] in heads:
                    previous.append(source["name"])
                    if show_shape:
                        key = source["name"] + ("_output" if source["op"] != "null" else "")
                        in_shape = shape_dict.get(key, ())[1:]  # type: ignore[union-attr]
                        if in_shape:  # (MXNet 1.9.1 fails on a 1-d input here)
                            pre_filter += int(in_shape[0])
        params = 0
        if op == "Convolution":
            params = pre_filter * int(attrs["num_filter"]) // int(attrs.get("num_group", "1"))
            for k in _digits(attrs["kernel"]):
                params *= int(k)
            if attrs.get("no_bias") != "True":
                params += int(attrs["num_filter"])
        elif op == "FullyConnected":
            width = pre_filter if attrs.get("no_bias") == "True" else pre_filter + 1
            params = width * int(attrs["num_hidden"])
        elif op == "BatchNorm":
            if show_shape:
                params = int(shape_dict[node["name"] + "_output"][1]) * 2  # type: ignore[index]
        elif op == "Embedding":
            params = int(attrs["input_dim"]) * int(attrs["output_dim"])
        print_row([f"{node['name']}({op})", "x".join(str(d) for d in out_shape), params,
                   previous[0] if previous else ""])
        for name in previous[1:]:
            print_row(["", "", "", name])
        return params

    print("_" * line_length)
    print_row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"])
    print("=" * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node["op"] == "null" and i > 0:
            continue
        out_shape: Sequence[int] = []
        if show_shape and (node["op"] != "null" or i in heads):
            key = node["name"] + ("_output" if node["op"] != "null" else "")
            out_shape = shape_dict.get(key, ())[1:]  # type: ignore[union-attr]
        total += layer(node, out_shape)
        print(("=" if i == len(nodes) - 1 else "_") * line_length)
    print(f"Total params: {total}")
    print("_" * line_length)


def _node_style(node: dict) -> tuple[str, int]:
    """(label, colour index) of an operator node, as MXNet draws it."""
    op, name, attrs = node["op"], node["name"], node.get("attrs", {})
    if op == "Convolution":
        stride = "x".join(_digits(attrs["stride"])) if "stride" in attrs else "1"
        return f"Convolution\n{'x'.join(_digits(attrs['kernel']))}/{stride}, {attrs['num_filter']}", 1
    if op == "FullyConnected":
        return f"FullyConnected\n{attrs['num_hidden']}", 1
    if op == "BatchNorm":
        return name, 3
    if op == "Activation":
        return f"Activation\n{attrs['act_type']}", 2
    if op == "LeakyReLU":
        return f"LeakyReLU\n{attrs.get('act_type', 'Leaky')}", 2
    if op == "Pooling":
        kernel = "x".join(_digits(attrs["kernel"])) if "kernel" in attrs else "[]"
        stride = "x".join(_digits(attrs["stride"])) if "stride" in attrs else "1"
        return f"Pooling\n{attrs['pool_type']}, {kernel}/{stride}", 4
    if op in ("Concat", "Flatten", "Reshape"):
        return name, 5
    if op == "Softmax":
        return name, 6
    if op == "Custom":
        return attrs["op_type"], 7
    return name, 7


def plot_network(symbol: Symbol, title: str = "plot", save_format: str = "pdf",
                 shape: Mapping[str, Any] | None = None, dtype: Mapping[str, Any] | None = None,
                 node_attrs: Mapping[str, str] = {}, hide_weights: bool = True) -> Any:  # noqa: B006 (MXNet's signature)
    """A ``graphviz.Digraph`` of the graph computing ``symbol`` (MXNet's picture: one box per
    operator, data inputs as ovals, edges labelled with shapes when ``shape`` is given and dtypes
    when ``dtype`` is given). ``node_attrs`` override Graphviz node attributes; ``save_format`` is
    the Digraph's render format. Needs the ``graphviz`` package; rendering needs ``dot``."""
    try:
        from graphviz import Digraph
    except ImportError:
        raise ImportError("Draw network requires graphviz library (pip install graphviz; rendering "
                          "also needs Graphviz's dot program)") from None
    return _draw(symbol, Digraph(name=title, format=save_format), shape, dtype, node_attrs, hide_weights)


class _DotSource:
    """The part of ``graphviz.Digraph`` that :func:`_draw` uses, writing DOT text itself: the
    ``.dot`` file needs no package (every ID and value double-quoted, which DOT always accepts)."""

    def __init__(self, name: str) -> None:
        self._lines = [f"digraph {self._q(name)} {{"]

    @staticmethod
    def _q(text: str) -> str:
        return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'

    def _attrs(self, attrs: Mapping[str, str]) -> str:
        return " [" + " ".join(f"{k}={self._q(v)}" for k, v in attrs.items()) + "]" if attrs else ""

    def node(self, name: str, label: str, **attrs: str) -> None:
        self._lines.append(f"\t{self._q(name)}{self._attrs({'label': label, **attrs})}")

    def edge(self, tail_name: str, head_name: str, **attrs: str) -> None:
        self._lines.append(f"\t{self._q(tail_name)} -> {self._q(head_name)}{self._attrs(attrs)}")

    @property
    def source(self) -> str:
        return "\n".join(self._lines) + "\n}\n"


def _draw(symbol: Symbol, dot: Any, shape: Mapping[str, Any] | None, dtype: Mapping[str, Any] | None,
          node_attrs: Mapping[str, str], hide_weights: bool) -> Any:
    """Fills ``dot`` (a ``graphviz.Digraph`` or a :class:`_DotSource`) with MXNet's picture."""
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    shape_dict, type_dict = _internal_dict(symbol, shape, dtype)
    conf = json.loads(symbol.tojson())
    nodes = conf["nodes"]
    names = [n["name"] for n in nodes]
    if len(names) != len(set(names)):
        repeated = sorted({n for n in names if names.count(n) > 1})
        warnings.warn("There are multiple variables with the same name in your graph, this may result in "
                      "cyclic graph. Repeated names: " + ",".join(repeated), RuntimeWarning, stacklevel=2)
    base = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034", "style": "filled"}
    base.update(node_attrs)

    hidden: set[str] = set()
    for node in nodes:
        attr = copy.deepcopy(base)
        if node["op"] == "null":
            if node["name"].endswith(_WEIGHT_SUFFIXES):
                if hide_weights:
                    hidden.add(node["name"])
                continue  # not declared: shown (when not hidden) as a bare ellipse at its edge
            attr["shape"] = "oval"
            label, color = node["name"], 0
        else:
            label, color = _node_style(node)
        attr["fillcolor"] = _COLORS[color]
        dot.node(name=node["name"], label=label, **attr)

    def entry_key(source: dict, index: int, table: dict) -> str:
        if source["op"] == "null":
            return source["name"]
        key = source["name"] + "_output"
        n = source.get("attrs", {}).get("num_outputs")
        if n is not None:
            key += str(int(n) - 1)  # MXNet labels every output of e.g. split with its last one's
        if key not in table:  # a multi-output op without num_outputs: the entry's own output
            internal = [k for k in table if k.startswith(source["name"] + "_")]
            key = internal[index] if index < len(internal) else key
        return key

    for node in nodes:
        if node["op"] == "null":
            continue
        inputs = node["inputs"]
        if node["op"] == "_contrib_BilinearResize2D":
            inputs = inputs[:1]
        for item in inputs:
            source = nodes[item[0]]
            if source["name"] in hidden:
                continue
            attr = {"dir": "back", "arrowtail": "open", "label": ""}
            if shape_dict is not None:
                attr["label"] = "x".join(str(d) for d in shape_dict[entry_key(source, item[1], shape_dict)][1:])
            if type_dict is not None:
                attr["label"] += "(" + type_dict[entry_key(source, item[1], type_dict)].__name__ + ")"
            dot.edge(tail_name=node["name"], head_name=source["name"], **attr)
    return dot


# picture formats asked for by extension when the graphviz package (and its FORMATS list) is absent
_PICTURES = frozenset({"svg", "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps", "json", "xdot", "plain"})


def dot_available() -> bool:
    """Is Graphviz's ``dot`` program on ``PATH`` (needed to render, not to build a Digraph)?"""
    return shutil.which("dot") is not None


def write_graph(symbol: Symbol, path: str | os.PathLike, shape: Mapping[str, Any] | None = None,
                title: str = "plot", hide_weights: bool = True, node_attrs: Mapping[str, str] | None = None,
                fallback_to_dot: bool = True) -> str:
    """Writes ``plot_network(symbol, ...)`` to ``path`` atomically; returns the path written.

    The format is the extension: ``.dot``/``.gv`` is the DOT source (needs no package: written
    by :class:`_DotSource` when the graphviz package is absent), anything else (``.svg``, ``.png``,
    ``.pdf``) is rendered by Graphviz's ``dot`` through the graphviz package. Without ``dot`` the
    DOT source is written beside it instead (``model.svg`` -> ``model.dot``, returned so the caller
    can say so) or, with ``fallback_to_dot=False``, :class:`GraphvizMissing` is raised; either way
    no half-written picture is left."""
    from ..atomic import write_bytes

    path = os.fspath(path)
    root, ext = os.path.splitext(path)
    ext = ext.lower().lstrip(".")
    if not ext:
        raise ValueError("no extension to tell the picture format (.svg, .png, .pdf or .dot)")
    fmt = "dot" if ext in ("dot", "gv") else ext
    try:
        import graphviz
    except ImportError:
        graphviz = None
    if fmt != "dot" and fmt not in (graphviz.FORMATS if graphviz is not None else _PICTURES):
        raise ValueError(f"unknown picture format .{ext} (.svg, .png, .pdf or .dot)")
    if graphviz is None and (fmt == "dot" or fallback_to_dot):
        if fmt != "dot":
            path = root + ".dot"
        digraph = _draw(symbol, _DotSource(title), shape, None, dict(node_attrs or {}), hide_weights)
        write_bytes(path, digraph.source.encode("utf-8"))
        return path
    if graphviz is None:
        raise GraphvizMissing(f"rendering .{ext} needs the graphviz Python package, which is not installed "
                              "(pip install 'hybridize[viz]')")
    if fmt != "dot" and not dot_available():
        if not fallback_to_dot:
            raise GraphvizMissing(f"rendering .{ext} needs Graphviz's dot program, which is not installed "
                                  "(apt-get install graphviz / brew install graphviz)")
        path, fmt = root + ".dot", "dot"
    digraph = plot_network(symbol, title=title, save_format=fmt, shape=shape, node_attrs=dict(node_attrs or {}),
                           hide_weights=hide_weights)
    if fmt == "dot":
        data = digraph.source.encode("utf-8")
    else:
        try:
            data = digraph.pipe(format=fmt, quiet=True)  # dot's layout warnings are not errors
        except graphviz.ExecutableNotFound:
            raise GraphvizMissing(f"rendering .{ext} needs Graphviz's dot program, which is not "
                                  "installed") from None
        except graphviz.CalledProcessError as e:
            detail = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else str(e.stderr or e)
            raise RuntimeError("dot failed: " + " ".join(detail.split())) from None
    write_bytes(path, data)
    return path
