"""Property-based fuzzing of the loaders (hypothesis, bounded): mutated ``.params`` (dense and
sparse), ``.npz`` (byte mutations and forged ``.npy`` headers in well-formed archives) and symbol
JSON (byte mutations and structural ones: hostile attributes, wrong types, dangling inputs) never
crash, hang or allocate past the load limit. Loading either succeeds or raises ``LoadError`` with
a one-line message naming the file; peak allocation (numpy's included, via tracemalloc) stays
below the limit plus a small multiple of the file's size; every example runs under a 10 s alarm.
Seeds are built here (a small Conv/BatchNorm/Dense net exported by the runtime, sparse records
written byte by byte), so the test needs nothing from ``../shared``."""
from __future__ import annotations

import copy
import io
import json
import signal
import struct
import tracemalloc
import zipfile
from contextlib import contextmanager
from functools import lru_cache

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import param_files as pf  # noqa: E402

CAP = 8 * 1024 ** 2             # the load limit every example runs under
HOSTILE_INTS = [0, 1, 7, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 40, 2 ** 62, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1]
FUZZ = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class Hang(Exception):
    pass


@contextmanager
def alarm(seconds: float):
    def fire(signum, frame):
        raise Hang(f"no answer within {seconds} s")
    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@lru_cache(maxsize=None)
def seeds(folder: str) -> dict[str, bytes]:
    """A small exported net (symbol JSON + .params), its arrays as .npz (stored and deflated), and
    a .params file holding a row_sparse and a csr array."""
    from hybridize.runtime import nd
    from hybridize.runtime.gluon import nn

    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, in_channels=2), nn.BatchNorm(in_channels=4), nn.Activation("relu"),
            nn.MaxPool2D(), nn.Flatten(), nn.Dense(3, in_units=4))
    net.initialize()
    net.hybridize()
    net(nd.ones((1, 2, 4, 4)))
    net.export(f"{folder}/seed")
    with open(f"{folder}/seed-0000.params", "rb") as f:
        params = f.read()
    with open(f"{folder}/seed-symbol.json", "rb") as f:
        symbol = f.read()
    from hybridize.runtime.graph import params as P
    arrays = P.loads(params)
    out = {"params": params, "json": symbol,
           "sparse": pf.params_file({"rs": pf.row_sparse((6, 2), (2, 2), struct.pack("<4f", 1, 2, 3, 4), [1, 4]),
                                     "csr": pf.csr((3, 4), [1.0, 2.0], [0, 1, 1, 2], [3, 0])})}
    for name, method in (("npz_stored", zipfile.ZIP_STORED), ("npz", zipfile.ZIP_DEFLATED)):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", method) as z:
            for k, v in arrays.items():
                member = io.BytesIO()
                np.save(member, v)
                z.writestr(k + ".npy", member.getvalue())
        out[name] = buf.getvalue()
    return out


class Seeds(tuple):
    def __repr__(self) -> str:  # falsifying examples print the mutation, not kilobytes of seed
        return "<seeds>"


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    return Seeds((folder, seeds(str(folder))))


# -- byte mutations ------------------------------------------------------------------------------
_at = st.integers(0, 2 ** 20)   # a position, taken modulo the length
MUTATION = st.one_of(
    st.tuples(st.just("truncate"), _at),
    st.tuples(st.just("flip"), _at, st.integers(0, 255)),
    st.tuples(st.just("u64"), _at, st.sampled_from(HOSTILE_INTS)),
    st.tuples(st.just("u32"), _at, st.sampled_from(HOSTILE_INTS)),
    st.tuples(st.just("insert"), _at, st.binary(min_size=1, max_size=16)),
    st.tuples(st.just("delete"), _at, st.integers(1, 64)),
)
MUTATIONS = st.lists(MUTATION, min_size=1, max_size=4)


def mutate(data: bytes, steps) -> bytes:
    b = bytearray(data)
    for kind, at, *arg in steps:
        p = at % (len(b) + 1)
        if kind == "truncate":
            del b[p:]
        elif kind == "flip" and b:
            b[min(p, len(b) - 1)] ^= arg[0] or 0xFF
        elif kind in ("u64", "u32"):
            width = 8 if kind == "u64" else 4
            p = min(p, max(len(b) - width, 0))
            b[p:p + width] = struct.pack("<Q" if width == 8 else "<I", arg[0] & (2 ** (8 * width) - 1))
        elif kind == "insert":
            b[p:p] = arg[0]
        elif kind == "delete":
            del b[p:p + arg[0]]
    return bytes(b)


def _event(text: str) -> None:
    """What happened, for ``--hypothesis-show-statistics`` (outside hypothesis: nothing)."""
    try:
        hypothesis.event(text)
    except hypothesis.errors.InvalidArgument:
        pass


def loads_cleanly(path, load) -> object:
    """``load(path)`` returns or raises a one-line LoadError naming ``path``; never more than the
    cap (+ a few copies of the file) is allocated, never longer than the alarm."""
    from hybridize.runtime.base import LoadError

    size = path.stat().st_size
    tracemalloc.start()
    try:
        with alarm(10):
            try:
                out = load(path)
                _event("loaded")
                return out
            except LoadError as e:
                assert e.path == str(path) and "\n" not in str(e) and e.problem
                _event("LoadError: " + " ".join(e.problem.replace(":", " ").split()[:2]))
                return e
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= CAP + 4 * size + (1 << 20), f"peak allocation {peak} bytes"


def _params_load(path):
    from hybridize.runtime.graph import params
    return params.load(path, max_bytes=CAP)


@FUZZ
@given(steps=MUTATIONS)
def test_mutated_params_never_crash(seed, steps) -> None:
    folder, s = seed
    path = folder / "case.params"
    path.write_bytes(mutate(s["params"], steps))
    loads_cleanly(path, _params_load)


@FUZZ
@given(steps=MUTATIONS)
def test_mutated_sparse_params_never_crash(seed, steps) -> None:
    folder, s = seed
    path = folder / "case-sparse.params"
    path.write_bytes(mutate(s["sparse"], steps))
    out = loads_cleanly(path, _params_load)
    if isinstance(out, dict):   # whatever loads is a dict of dense arrays within the cap
        assert all(v is None or isinstance(v, np.ndarray) for v in out.values())


@FUZZ
@given(which=st.sampled_from(["npz_stored", "npz"]), steps=MUTATIONS)
def test_mutated_npz_never_crash(seed, which, steps) -> None:
    folder, s = seed
    path = folder / "case.npz"
    path.write_bytes(mutate(s[which], steps))
    loads_cleanly(path, _params_load)


SHAPES = st.lists(st.one_of(st.integers(0, 8), st.sampled_from(HOSTILE_INTS)), max_size=6).map(tuple)
DESCRS = st.sampled_from(["<f4", "<f8", "|u1", "<i8", "|b1", ">f4", "<U4", "|V8", "|O", "<M8[s]", "|S0", "float32"])


@FUZZ
@given(shape=SHAPES, descr=DESCRS, fortran=st.booleans(), data=st.binary(max_size=256),
       pad=st.sampled_from([0, 1, 2 ** 32 - 1]))
def test_forged_npy_headers_in_well_formed_npz(seed, shape, descr, fortran, data, pad) -> None:
    """The archive itself is valid (sizes, CRCs); only the .npy header lies."""
    folder, _ = seed
    header = pf.npy_header(shape, descr, fortran)
    if pad:  # a header length field that disagrees with the text
        header = header[:8] + struct.pack("<H", pad & 0xFFFF) + header[10:]
    path = folder / "forged.npz"
    path.write_bytes(pf.npz({"w.npy": header + data}))
    loads_cleanly(path, _params_load)


# -- symbol JSON ---------------------------------------------------------------------------------
HOSTILE_ATTRS = [
    "", "0", "-1", "(0,)", "(2**40,)", "(1099511627776, 1099511627776)", "(-5, 3)", "1e308", "-1e308", "nan",
    "inf", "None", "True", "[1, [2, [3]]]", "(" * 400 + ")" * 400, "abc", "'x'", "__import__('os').system('x')",
    "(" + "3, " * 40 + ")", "4294967296", "9223372036854775808", "float16", "int64", "(1, 0)", "(0, 0)"]
ATTR_VALUES = st.sampled_from(HOSTILE_ATTRS)
ATTR_KEYS = st.sampled_from(["shape", "num_hidden", "kernel", "dtype", "__shape__", "__dtype__", "axis", "eps",
                             "num_filter", "num_group", "stride", "pad", "act_type", "no_bias", "flatten"])
JSON_VALUES = st.sampled_from([None, True, 0, -1, 2 ** 63, 1e308, "x", [], {}, [[0, 0, 0]], [0], [[999, 0, 0]],
                               [[0, 99, 0]], {"a": 1}, [[-1, 0]]])
OPS = st.sampled_from(["null", "_zeros", "_ones", "Reshape", "tile", "broadcast_to", "_arange", "one_hot",
                       "Embedding", "Concat", "SliceChannel", "FullyConnected", "Convolution", "no_such_op", ""])
JSON_EDIT = st.one_of(
    st.tuples(st.just("attr"), st.integers(0, 99), ATTR_KEYS, ATTR_VALUES),
    st.tuples(st.just("field"), st.integers(0, 99), st.sampled_from(["op", "name", "inputs", "attrs", "attr"]), JSON_VALUES),
    st.tuples(st.just("op"), st.integers(0, 99), OPS),
    st.tuples(st.just("top"), st.sampled_from(["heads", "arg_nodes", "node_row_ptr", "nodes", "attrs"]), JSON_VALUES),
    st.tuples(st.just("drop_inputs"), st.integers(0, 99)),
    st.tuples(st.just("cut_nodes"), st.integers(0, 99)),
    st.tuples(st.just("var_hint"), st.integers(0, 99), st.sampled_from(["__shape__", "__dtype__"]), ATTR_VALUES),
)


def edit(doc: dict, edits) -> dict:
    doc = copy.deepcopy(doc)
    for kind, *arg in edits:
        nodes = doc.get("nodes")
        if not isinstance(nodes, list) or not nodes:
            break
        if kind == "top":
            doc[arg[0]] = copy.deepcopy(arg[1])
            continue
        node = nodes[arg[0] % len(nodes)]
        if not isinstance(node, dict):
            continue
        if kind == "attr":
            if not isinstance(node.get("attrs"), dict):
                node["attrs"] = {}
            node["attrs"][arg[1]] = arg[2]
        elif kind == "field":
            node[arg[1]] = copy.deepcopy(arg[2])
        elif kind == "op":
            node["op"] = arg[1]
        elif kind == "drop_inputs" and isinstance(node.get("inputs"), list) and node["inputs"]:
            node["inputs"] = node["inputs"][:-1]
        elif kind == "cut_nodes":
            del nodes[arg[0] % len(nodes):]
        elif kind == "var_hint":
            variables = [n for n in nodes if isinstance(n, dict) and n.get("op") == "null"] or [node]
            var = variables[arg[0] % len(variables)]
            if not isinstance(var.get("attrs"), dict):
                var["attrs"] = {}
            var["attrs"][arg[1]] = arg[2]
    return doc


def _json_load(path):
    from hybridize.runtime.graph import mxnet_json
    return mxnet_json.load(path)


@FUZZ
@given(steps=MUTATIONS)
def test_mutated_symbol_json_bytes_never_crash(seed, steps) -> None:
    folder, s = seed
    path = folder / "case-symbol.json"
    path.write_bytes(mutate(s["json"], steps))
    loads_cleanly(path, _json_load)


@settings(FUZZ, max_examples=60)
@given(edits=st.lists(JSON_EDIT, min_size=1, max_size=3))
def test_hostile_symbol_json_loads_and_runs_or_fails_cleanly(seed, edits) -> None:
    """A structurally mutated graph loads (or not) and, with the seed's parameters, runs or raises
    a typed error: ``hybridize run``'s path, so no mutation reaches "internal error"."""
    from hybridize.runtime.base import HybridizeError
    from hybridize.runtime.graph.model import Model

    folder, s = seed
    path = folder / "mut-symbol.json"
    path.write_text(json.dumps(edit(json.loads(s["json"]), edits)))
    graph = loads_cleanly(path, _json_load)
    if isinstance(graph, Exception):
        return
    with alarm(10):
        try:
            model = Model.load(path, folder / "seed-0000.params", executor="interpret", max_bytes=CAP)
            if model.input_names == ["data"]:
                model.run({"data": np.ones((1, 2, 4, 4), np.float32)})
        except HybridizeError as e:
            assert "\n" not in str(e).strip()


@pytest.mark.parametrize("key", ["__shape__", "__dtype__"])
@pytest.mark.parametrize("value", HOSTILE_ATTRS)
def test_hostile_variable_hints_never_crash(seed, key, value) -> None:
    """Shape and dtype hints on a variable are parsed at load time: every hostile string is a value
    or a LoadError naming the node and the attribute (exhaustive: few enough to try them all)."""
    folder, s = seed
    doc = json.loads(s["json"])
    next(n for n in doc["nodes"] if n["op"] == "null").setdefault("attrs", {})[key] = value
    path = folder / "hint-symbol.json"
    path.write_text(json.dumps(doc))
    loads_cleanly(path, _json_load)
