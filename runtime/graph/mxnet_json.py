"""MXNet 1.x symbol JSON (``*-symbol.json``, ``Symbol.tojson()``) to and from the graph IR.

Export reproduces MXNet 1.9.1's writer byte for byte (nnvm's ``SaveJSON`` through dmlc-core's
``JSONWriter``): ``nodes`` (``op``, ``name``, ``attrs`` only when non-empty, sorted, ``inputs``
as ``[node, output, 0]``), ``arg_nodes``, ``node_row_ptr``, ``heads`` and
``attrs: {"mxnet_version": ["int", 10901]}``; arrays of numbers go multi-line past 10 items,
objects past 1 key; separators are ``", "`` and ``": "``; no trailing newline.

Import accepts what MXNet's loader accepts, including older files (``attr`` or ``param`` instead
of ``attrs``, no ``node_row_ptr``, inputs as ``[node, output]`` pairs, legacy hidden keys such as
``lr_mult``). Attribute strings are read by the safe literal parser of ``ops/attrs.py``; nothing
in a file is ever evaluated. Every problem raises ``LoadError(path, problem)`` naming the node.
"""
from __future__ import annotations

import json
import os
from typing import Any

from ...atomic import write_bytes
from ..base import LoadError
from ..ops.attrs import AttrError, format_value
from ..ops.registry import find_op
from .infer import var_dtype_hint, var_shape_hint
from .ir import Entry, Graph, Node, no_cyclic_gc, topo_order

__all__ = ["loads", "load", "dumps", "save", "MXNET_VERSION", "mx_num_outputs"]

MXNET_VERSION = 10901

# Keys MXNet before 0.9 wrote without underscores; its loader renames them (legacy_json_util.cc).
_LEGACY_HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def _is_dunder(key: str) -> bool:
    return len(key) > 4 and key.startswith("__") and key.endswith("__")


# -- MXNet's total output count (visible + hidden) ----------------------------------------------
# ops whose hidden outputs only feed MXNet's backward pass (LU/pivots, padded copies, ...): total count
_HIDDEN_TOTAL = {"_linalg_det": 3, "_linalg_slogdet": 4, "Correlation": 3, "BatchNorm_v1": 3,
                 "_contrib_Proposal": 2, "_contrib_MultiProposal": 2, "_contrib_DeformablePSROIPooling": 2}


def mx_num_outputs(node: Node) -> int:
    """How many outputs MXNet 1.9.1 (oneDNN build, the pip wheel) gives ``node``: what
    ``node_row_ptr`` counts. Some operators have hidden outputs our kernels do not produce
    (BatchNorm's saved mean/var, Dropout's mask, max Pooling's oneDNN workspace, ...)."""
    if node.op is None:
        return 1
    n = node.num_outputs
    name = node.op.name
    a = node.resolved
    hidden = 0
    if name in ("BatchNorm", "_contrib_SyncBatchNorm", "LayerNorm", "GroupNorm", "InstanceNorm"):
        hidden = 3
    elif name in ("Dropout", "LRN", "ROIPooling", "CTCLoss", "_contrib_box_nms"):
        hidden = 2
    elif name in _HIDDEN_TOTAL:
        hidden = _HIDDEN_TOTAL[name]
    elif name == "LeakyReLU":
        hidden = 2 if a.get("act_type") == "rrelu" else 1
    elif name == "topk":
        hidden = 1 if a.get("ret_typ") in ("indices", "mask") else 2
    elif name == "Pooling":
        # pooling.cc GetNumOutputs: MKLDNNRequireWorkspace && SupportMKLDNNPooling -> 2
        kernel = a.get("kernel") or ()
        layout = a.get("layout")
        if (a.get("pool_type") == "max" and 1 <= len(kernel) <= 3
                and layout in (None, "NCW", "NCHW", "NCDHW")):
            hidden = 2
    return max(n, hidden)


# -- writer (dmlc::JSONWriter, exactly) ------------------------------------------------------------
_ESCAPES = {"\r": "\\r", "\n": "\\n", "\\": "\\\\", "\t": "\\t", '"': '\\"'}


def _string(s: str) -> str:
    if any(c in s for c in _ESCAPES):
        s = "".join(_ESCAPES.get(c, c) for c in s)
    return '"' + s + '"'


class _Writer:
    """dmlc-core's JSONWriter: separators ``", "``, newline + 2 spaces per open scope when multi-line."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.multi: list[bool] = []
        self.count: list[int] = []

    def _sep(self) -> None:
        if not self.multi or self.multi[-1]:
            self.out.append("\n" + " " * (2 * len(self.multi)))

    def begin(self, ch: str, multi_line: bool) -> None:
        self.out.append(ch)
        self.multi.append(multi_line)
        self.count.append(0)

    def end(self, ch: str) -> None:
        multi = self.multi.pop()
        n = self.count.pop()
        if multi and n:
            self._sep()
        self.out.append(ch)

    def key(self, k: str) -> None:
        if self.count[-1] > 0:
            self.out.append(", ")
        self._sep()
        self.out.append('"' + k + '": ')
        self.count[-1] += 1

    def item(self) -> None:
        if self.count[-1] != 0:
            self.out.append(", ")
        self.count[-1] += 1
        self._sep()

    def raw(self, text: str) -> None:
        self.out.append(text)

    # composite values
    def str_map(self, d: dict[str, str]) -> None:
        self.begin("{", len(d) > 1)
        for k, v in d.items():
            self.key(k)
            self.raw(_string(v))
        self.end("}")

    def int_list(self, values: list[int]) -> None:
        self.begin("[", len(values) > 10)
        for v in values:
            self.item()
            self.raw(str(int(v)))
        self.end("]")

    def entries(self, values: list[tuple[int, int, int]]) -> None:
        # vector<Entry>: Entry is POD, so multi-line only past 10 items; each entry is one line
        self.begin("[", len(values) > 10)
        for e in values:
            self.item()
            self.begin("[", False)
            for x in e:
                self.item()
                self.raw(str(int(x)))
            self.end("]")
        self.end("]")


def _node_attrs(node: Node) -> dict[str, str]:
    attrs: dict[str, str] = dict(node.extra)
    if node.op is not None and node.attrs:
        # a subgraph operator's bodies are written as its "subgraphs", not as an attribute
        attrs.update(node.op.format_attrs({k: v for k, v in node.attrs.items() if k != "subgraphs"}))
    return {k: attrs[k] for k in sorted(attrs)}


def _variable_versions(nodes: list[Node]) -> dict[tuple[int, int], int]:
    """The third number of an input entry: nnvm's variable version. An op that mutates a variable
    (an auxiliary state such as BatchNorm's moving_mean) bumps its version; MXNet's symbol
    composition does so twice per op (``UpdateNodeVersion`` runs at creation and at compose), and
    later readers see the bumped version. Keyed by (id(consumer), input position)."""
    counter: dict[int, int] = {}
    out: dict[tuple[int, int], int] = {}
    for n in nodes:
        if n.op is None or not n.inputs:
            continue
        mutated = set(n.op.aux) if n.op.aux else set()
        names = n.input_names if mutated else []
        for k, e in enumerate(n.inputs):
            if e.node.op is not None:
                continue
            v = counter.get(id(e.node), 0)
            if k < len(names) and names[k] in mutated:
                v += 2
                counter[id(e.node)] = v
            if v:
                out[(id(n), k)] = v
    return out


def dumps(graph: Graph, np_shape: bool | None = None) -> str:
    """The graph as MXNet 1.9.1 writes it (``Symbol.tojson()``, ``*-symbol.json``). With NumPy shape
    semantics on (``np_shape``, default: ``npx.set_np()``'s state now, as MXNet reads its global
    flag when saving) it says so (``"is_np_shape": ["int", 1]``) and writes a variable's unknown
    dimensions as -1 (``"__shape__": "(256, -1)"``), as MXNet does."""
    if np_shape is None:
        from ..util import is_np_shape
        np_shape = is_np_shape()
    w = _Writer()
    _write_graph(w, graph, top=True, np_shape=np_shape)
    return "".join(w.out)


def _np_shape_text(text: str) -> str:
    """A ``__shape__`` annotation with the unknown dimensions (0) written -1 (NumPy shape semantics)."""
    from ..ops.attrs import parse_literal
    try:
        v = parse_literal(text)
    except (ValueError, TypeError, SyntaxError):
        return text
    dims = v if isinstance(v, tuple) else (v,)
    return format_value(tuple(-1 if int(d) == 0 else int(d) for d in dims))


def _write_graph(w: "_Writer", graph: Graph, top: bool, np_shape: bool = False) -> None:
    nodes = topo_order(graph.outputs)
    index = {id(n): i for i, n in enumerate(nodes)}
    w.begin("{", True)
    w.key("nodes")
    w.begin("[", True)
    row_ptr = [0]
    versions = _variable_versions(nodes)
    for n in nodes:
        w.item()
        w.begin("{", True)
        w.key("op")
        w.raw(_string("null" if n.op is None else n.op.name))
        w.key("name")
        w.raw(_string(n.name))
        attrs = _node_attrs(n)
        if np_shape and n.op is None and "__shape__" in attrs:
            attrs["__shape__"] = _np_shape_text(attrs["__shape__"])
        if attrs:
            w.key("attrs")
            w.str_map(attrs)
        w.key("inputs")
        w.entries([(index[id(e.node)], e.index, versions.get((id(n), k), 0)) for k, e in enumerate(n.inputs)])
        subs = n.attrs.get("subgraphs") if n.op is not None else None
        if subs:
            w.key("subgraphs")
            w.begin("[", True)
            for sub in subs:
                w.item()
                _write_graph(w, sub.graph, top=False)
            w.end("]")
        w.end("}")
        row_ptr.append(row_ptr[-1] + mx_num_outputs(n))
    w.end("]")
    w.key("arg_nodes")
    w.int_list([i for i, n in enumerate(nodes) if n.op is None])
    w.key("node_row_ptr")
    w.int_list(row_ptr)
    w.key("heads")
    w.entries([(index[id(e.node)], e.index, 0) for e in graph.outputs])
    if top:
        w.key("attrs")
        w.begin("{", False)
        if np_shape:
            w.key("is_np_shape")
            w.raw('["int", 1]')
        w.key("mxnet_version")
        w.raw('["int", %d]' % MXNET_VERSION)
        w.end("}")
    w.end("}")


def save(path: str | os.PathLike, graph: Graph) -> None:
    """Writes ``dumps(graph)`` to ``path`` atomically (temporary file in the same folder, rename)."""
    write_bytes(path, dumps(graph).encode("utf-8"))


# -- reader ------------------------------------------------------------------------------------------
#: the largest symbol JSON read (a 100k-node graph is ~30 MB); the variable raises it
MAX_SYMBOL_BYTES = 256 * 1024 * 1024
MAX_SYMBOL_BYTES_ENV = "HYBRIDIZE_MAX_SYMBOL_BYTES"


def load(path: str | os.PathLike) -> Graph:
    """Reads a symbol JSON file; ``LoadError`` names the file and the problem."""
    from ...readers import cap_from_env, read_capped

    try:
        data = read_capped(path, cap_from_env(MAX_SYMBOL_BYTES_ENV, MAX_SYMBOL_BYTES), "a symbol JSON file",
                           MAX_SYMBOL_BYTES_ENV)
    except FileNotFoundError:
        raise LoadError(path, "no such file") from None
    except IsADirectoryError:
        raise LoadError(path, "is a directory, not a symbol JSON file") from None
    except OSError as e:
        raise LoadError(path, f"cannot read: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LoadError(path, f"not a symbol JSON (not UTF-8 text: byte {e.start})") from None
    return loads(text, path=path)


def _entry(value: Any, where: str, path: Any) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) not in (2, 3)
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)):
        raise LoadError(path, f"{where}: malformed entry {json.dumps(value)} (expected [node, output, version])")
    return value[0], value[1]


def _str_dict(value: Any, where: str, path: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise LoadError(path, f"{where}: attributes must be an object, got {type(value).__name__}")
    out = {}
    for k, v in value.items():
        if not isinstance(v, str):
            raise LoadError(path, f"{where}: attribute {k}={json.dumps(v)} is not a string")
        out[k] = v
    return out


def loads(text: str, path: str | os.PathLike | None = None) -> Graph:
    """Parses symbol JSON text into a :class:`Graph` (``path`` only names the file in errors)."""
    try:
        doc = json.loads(text, strict=False)
    except json.JSONDecodeError as e:
        raise LoadError(path, f"not a symbol JSON (invalid JSON at line {e.lineno} column {e.colno}: {e.msg})") from None
    except RecursionError:
        raise LoadError(path, "not a symbol JSON (nested too deeply)") from None
    if not isinstance(doc, dict) or "nodes" not in doc:
        raise LoadError(path, "not a symbol JSON (missing 'nodes')")
    with no_cyclic_gc():
        return _graph(doc, path)[0]


def _graph(doc: Any, path: Any, depth: int = 0) -> tuple[Graph, list[Node]]:
    """The graph of one parsed symbol document (or a node's subgraph) and its nodes in file order."""
    if depth > 32:
        raise LoadError(path, "subgraphs nested too deeply")
    if not isinstance(doc, dict) or "nodes" not in doc:
        raise LoadError(path, "not a symbol JSON (missing 'nodes')")
    raw_nodes = doc["nodes"]
    if not isinstance(raw_nodes, list):
        raise LoadError(path, "not a symbol JSON ('nodes' is not a list)")
    if "heads" not in doc:
        raise LoadError(path, "not a symbol JSON (missing 'heads')")

    # a file saved without numpy shape semantics read with them on: its shape annotations' 0 meant
    # "unknown", as MXNet's loader converts them (-1), not a zero-size axis
    from ..util import is_np_shape
    legacy_shapes = depth == 0 and is_np_shape() and not (isinstance(doc.get("attrs"), dict)
                                                          and "is_np_shape" in doc["attrs"])
    nodes: list[Node] = []
    for i, raw in enumerate(raw_nodes):
        if not isinstance(raw, dict):
            raise LoadError(path, f"node {i}: not an object")
        name = raw.get("name")
        if not isinstance(name, str):
            raise LoadError(path, f"node {i}: missing 'name'")
        where = f"node {i} {name!r}"
        op_name = raw.get("op")
        if not isinstance(op_name, str):
            raise LoadError(path, f"{where}: missing 'op'")
        strings: dict[str, str] = {}
        for key in ("param", "attr", "attrs"):  # later spellings win, as in MXNet's loader
            if key in raw:
                strings.update(_str_dict(raw[key], where, path))
        raw_inputs = raw.get("inputs", [])
        if not isinstance(raw_inputs, list):
            raise LoadError(path, f"{where}: 'inputs' is not a list")
        inputs: list[Entry] = []
        for k, v in enumerate(raw_inputs):
            src, out = _entry(v, f"{where} input {k}", path)
            if src < 0 or src >= len(raw_nodes):
                raise LoadError(path, f"node {i}: input refers to node {src}, which does not exist")
            if src >= i:
                raise LoadError(path, f"node {i}: input refers to node {src} which comes later")
            producer = nodes[src]
            if not 0 <= out < producer.num_outputs:
                raise LoadError(path, f"{where}: input {k} refers to output {out} of node {src} "
                                      f"{producer.name!r}, which has {producer.num_outputs} output(s)")
            inputs.append(Entry(producer, out))

        if op_name == "null":
            if inputs:
                raise LoadError(path, f"{where}: a variable ('null' op) cannot have inputs")
            extra = {(f"__{k}__" if k in _LEGACY_HIDDEN_KEYS else k): v for k, v in strings.items()}
            if legacy_shapes and "__shape__" in extra:
                extra["__shape__"] = _np_shape_text(extra["__shape__"])
            var = Node(None, name, extra=extra)
            for key, check in (("__shape__", var_shape_hint), ("__dtype__", var_dtype_hint)):
                if key in extra:
                    try:
                        check(var)
                    except (ValueError, TypeError, KeyError, OverflowError, RecursionError):
                        raise LoadError(path, f"{where}: attribute {key}={extra[key]!r} is malformed") from None
            nodes.append(var)
            continue

        op = find_op(op_name)
        if op is None:
            raise LoadError(path, f"{where}: unknown operator {op_name!r}")
        extra: dict[str, str] = {}
        given: dict[str, str] = {}
        for k, v in strings.items():
            if _is_dunder(k):
                extra[k] = v
            elif k in _LEGACY_HIDDEN_KEYS and op.param(k) is None:
                extra[f"__{k}__"] = v
            else:
                given[k] = v
        try:
            attrs = op.parse_attrs(given)
            if op.param("subgraphs") is not None:
                attrs["subgraphs"] = _subgraphs(raw, op, where, path, depth)
            node = Node(op, name, attrs, inputs, extra)
            expected = node.input_names
            n_out = node.num_outputs
        except AttrError as e:
            raise LoadError(path, f"{where}: {e}") from None
        except (ValueError, TypeError, KeyError, OverflowError, RecursionError) as e:
            raise LoadError(path, f"{where}: bad attributes for {op.name}: {e}") from None
        if len(inputs) != len(expected):
            raise LoadError(path, f"{where}: {op.name} takes {len(expected)} input(s) "
                                  f"({', '.join(expected)}), the file gives {len(inputs)}")
        del n_out
        nodes.append(node)

    raw_heads = doc["heads"]
    if not isinstance(raw_heads, list) or not raw_heads:
        raise LoadError(path, "not a symbol JSON ('heads' must be a non-empty list)")
    outputs: list[Entry] = []
    for k, v in enumerate(raw_heads):
        src, out = _entry(v, f"head {k}", path)
        if not 0 <= src < len(nodes):
            raise LoadError(path, f"head {k} refers to node {src}, which does not exist")
        producer = nodes[src]
        if not 0 <= out < producer.num_outputs:
            raise LoadError(path, f"head {k} refers to output {out} of node {src} {producer.name!r}, "
                                  f"which has {producer.num_outputs} output(s)")
        outputs.append(Entry(producer, out))
    return Graph(outputs), nodes


def _subgraphs(raw: dict, op: Any, where: str, path: Any, depth: int) -> tuple:
    """A subgraph operator's bodies (``subgraphs``); each one's inputs are its ``arg_nodes`` in order."""
    from ..ops.control_flow import subgraph_count
    from .subgraph import Subgraph

    subs = raw.get("subgraphs")
    want = subgraph_count(op)
    if not isinstance(subs, list) or len(subs) != want or not all(isinstance(d, dict) for d in subs):
        raise LoadError(path, f"{where}: {op.name} needs {want} subgraph(s) in 'subgraphs'")
    out = []
    for k, doc in enumerate(subs):
        graph, nodes = _graph(doc, path, depth + 1)
        args = doc.get("arg_nodes")
        if not isinstance(args, list) or any(not isinstance(i, int) or not 0 <= i < len(nodes) or
                                             nodes[i].op is not None for i in args):
            raise LoadError(path, f"{where}: subgraph {k}'s 'arg_nodes' must list its variable nodes")
        out.append(Subgraph(graph, [nodes[i] for i in args]))
    return tuple(out)
