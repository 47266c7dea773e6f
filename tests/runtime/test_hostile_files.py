"""Six hostile parameter files, rebuilt from their description: each declares far
more than it holds. Each is answered by ``hybridize run`` in one line naming the file, the array
and the problem, exit status 1, in a process limited to 2 GB of address space (so an attempt to
allocate what the file declares fails the test instead of the machine). The Python API raises the
typed ``LoadError`` for the same files; the load limit can be raised for genuine large files."""
from __future__ import annotations

import json
import os
import resource
import struct
import subprocess
import sys

import numpy as np
import pytest

import param_files as pf

LIMIT_AS = 2 * 1024 ** 3
GIB = 1024 ** 3

SYMBOL = {"nodes": [{"op": "null", "name": "data", "inputs": []},
                    {"op": "null", "name": "w", "inputs": []},
                    {"op": "elemwise_add", "name": "add0", "inputs": [[0, 0, 0], [1, 0, 0]]}],
          "arg_nodes": [0, 1], "heads": [[2, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}

# name -> (file name, bytes builder, what the one line must say)
HOSTILE = {
    "dense shape whose size overflows int64": (
        "dense_overflow.params", lambda: pf.params_file({"arg:w": pf.dense((0, 2 ** 62, 2 ** 62))}),
        ["array #0 (of 1)", "(0, 4611686018427387904, 4611686018427387904)", "overflows"]),
    "row_sparse whose dense shape is 4 PiB": (
        "row_sparse_4pib.params",
        lambda: pf.params_file({"arg:w": pf.row_sparse((2 ** 40, 1024), (1, 1024), bytes(4096), [0])}),
        ["array #0 (of 1) (row_sparse)", "(1099511627776, 1024)", "4 PiB", "load limit"]),
    "csr whose indptr ends at 2**40": (
        "csr_indptr.params",
        lambda: pf.params_file({"arg:w": pf.csr((2, 4), [1.0], [0, 1, 2 ** 40], [0])}),
        ["array #0 (of 1) (csr", "indptr", "1099511627776"]),
    "sparse data shape whose product wraps to 0": (
        "sparse_wrap.params",
        lambda: pf.params_file({"arg:w": pf.row_sparse((2 ** 32, 2 ** 32), (2 ** 32, 2 ** 32), b"", [])}),
        ["array #0 (of 1) data", "(4294967296, 4294967296)", "overflows"]),
    ".npz member whose header declares 4 TiB with no data": (
        "npy_4tib.npz", lambda: pf.npz({"arg:w.npy": pf.npy_header((2 ** 20, 2 ** 20))}),
        ["member 'arg:w.npy'", "(1048576, 1048576)", "4 TiB", "0 bytes of data"]),
    "4 MB .npz inflating to a 4 GiB float32 member": (
        "zip_bomb.npz", lambda: pf.zip64_deflated_zeros("arg:w.npy", pf.npy_header((GIB,)), 4 * GIB),
        ["member 'arg:w.npy' (inflating to 4294967424 bytes)", "4.0 GiB", "load limit", "HYBRIDIZE_MAX_LOAD_BYTES"]),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    (d / "net-symbol.json").write_text(json.dumps(SYMBOL))
    np.save(d / "x.npy", np.ones((2, 4), np.float32))
    files = {}
    for case, (name, build, _) in HOSTILE.items():
        (d / name).write_bytes(build())
        files[case] = d / name
    return d, files


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))


def _run_limited(args: list[str], cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ,
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env.pop("HYBRIDIZE_MAX_LOAD_BYTES", None)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          preexec_fn=_limited, timeout=120)


def test_the_zip_bomb_is_what_it_claims(hostile) -> None:
    import zipfile
    _, files = hostile
    path = files["4 MB .npz inflating to a 4 GiB float32 member"]
    assert os.path.getsize(path) < 5 * 1024 ** 2
    with zipfile.ZipFile(path) as z:
        (info,) = z.infolist()
        assert info.file_size == 4 * GIB + 128 and info.compress_type == zipfile.ZIP_DEFLATED
        with z.open(info) as member:            # a real deflate stream of the declared content
            assert member.read(128) == pf.npy_header((GIB,))
            assert member.read(1 << 20) == bytes(1 << 20)


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_file_is_one_line_exit_1_under_2gb(hostile, case) -> None:
    d, files = hostile
    path = files[case]
    r = _run_limited(["-c", "from hybridize.cli import main; main()", "run", "net-symbol.json",
                      "--params", str(path), "--input", "data=x.npy"], cwd=d)
    lines = r.stderr.splitlines()
    assert r.returncode == 1, r.stderr
    assert len(lines) == 1 and lines[0].startswith(f"hybridize run: {path}: "), r.stderr
    assert "internal error" not in lines[0] and "MemoryError" not in lines[0]
    for words in HOSTILE[case][2]:
        assert words in lines[0]


def test_python_api_raises_typed_load_errors_under_2gb(hostile) -> None:
    d, files = hostile
    script = ("import sys\n"
              "from hybridize.runtime import nd\n"
              "from hybridize.runtime.base import LoadError\n"
              "for p in sys.argv[1:]:\n"
              "    try:\n"
              "        nd.load(p)\n"
              "        print('loaded', p)\n"
              "    except LoadError as e:\n"
              "        print(type(e).__name__, e.path == p)\n")
    r = _run_limited(["-c", script, *map(str, files.values())], cwd=d)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["LoadError True"] * len(files)


def test_the_load_limit_can_be_raised_for_genuine_files(tmp_path, monkeypatch) -> None:
    from hybridize.runtime import nd
    from hybridize.runtime.base import LoadError
    from hybridize.runtime.graph import params

    arrays = {"a": np.arange(3000, dtype=np.float32), "b": np.ones((10, 10), np.float64)}
    params.save(tmp_path / "p.params", arrays)
    params.save(tmp_path / "p.npz", arrays)
    sparse = tmp_path / "s.params"
    sparse.write_bytes(pf.params_file({"w": pf.row_sparse((1000, 8), (1, 8), struct.pack("<8f", *range(8)), [7])}))
    for f in ("p.params", "p.npz", "s.params"):
        with pytest.raises(LoadError, match="load limit of 10 KiB; raise it with HYBRIDIZE_MAX_LOAD_BYTES"):
            nd.load(str(tmp_path / f), max_bytes="10K")
    monkeypatch.setenv("HYBRIDIZE_MAX_LOAD_BYTES", "10K")
    with pytest.raises(LoadError, match="over the load limit"):
        params.load(tmp_path / "p.npz")
    monkeypatch.setenv("HYBRIDIZE_MAX_LOAD_BYTES", "1M")
    loaded = params.load(tmp_path / "p.npz")
    assert all(np.array_equal(loaded[k], v) for k, v in arrays.items())
    dense = params.load(sparse)["w"]
    assert dense.shape == (1000, 8) and dense[7].tolist() == list(range(8)) and dense.sum() == 28
    monkeypatch.setenv("HYBRIDIZE_MAX_LOAD_BYTES", "lots")
    with pytest.raises(LoadError, match="HYBRIDIZE_MAX_LOAD_BYTES: 'lots' is not a byte count"):
        params.load(tmp_path / "p.npz")


def test_run_cli_option_raises_the_limit(hostile, tmp_path) -> None:
    d, _ = hostile
    params_path = tmp_path / "w.params"
    params_path.write_bytes(pf.params_file({"arg:w": pf.dense((2, 4), np.full((2, 4), 2, np.float32).tobytes())}))
    base = ["-c", "from hybridize.cli import main; main()", "run", str(d / "net-symbol.json"),
            "--params", str(params_path), "--input", f"data={d / 'x.npy'}"]
    r = _run_limited(base + ["--max-load-bytes", "100"], cwd=tmp_path)
    assert r.returncode == 1 and "over the load limit of 100 bytes" in r.stderr and len(r.stderr.splitlines()) == 1
    r = _run_limited(base + ["--max-load-bytes", "1M"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def _graph_with(nodes: list[dict], head: int) -> dict:
    return {"nodes": nodes, "arg_nodes": [0], "heads": [[head, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}


def test_a_graph_declaring_a_tensor_no_machine_holds_is_refused_naming_the_node(tmp_path) -> None:
    """Not a parameter file this time: the symbol JSON itself declares a 4 TiB intermediate."""
    data = {"op": "null", "name": "data", "inputs": []}
    huge = _graph_with([data, {"op": "_zeros", "name": "z", "attrs": {"shape": "(1048576, 1048576)"}, "inputs": []},
                        {"op": "broadcast_add", "name": "add0", "inputs": [[0, 0, 0], [1, 0, 0]]}], 2)
    (tmp_path / "huge-symbol.json").write_text(json.dumps(huge))
    np.save(tmp_path / "x.npy", np.ones((1, 1), np.float32))
    for executor in ("compiled", "interpret"):
        r = _run_limited(["-c", "from hybridize.cli import main; main()", "run", "huge-symbol.json",
                          "--input", "x.npy", "--executor", executor], cwd=tmp_path)
        assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
        assert r.stderr.startswith("hybridize run: huge-symbol.json: node 'z' (_zeros) would produce shape "
                                   "(1048576, 1048576): 1099511627776 elements, more than this machine's"), r.stderr


def test_running_out_of_memory_is_one_line_not_an_internal_error(tmp_path) -> None:
    """1 GiB intermediates fit any machine's memory but not a 2 GB address space: a clean line."""
    data = {"op": "null", "name": "data", "inputs": []}
    big = _graph_with([data, {"op": "_ones", "name": "o", "attrs": {"shape": "(16384, 16384)"}, "inputs": []},
                       {"op": "broadcast_add", "name": "a1", "inputs": [[0, 0, 0], [1, 0, 0]]},
                       {"op": "broadcast_mul", "name": "a2", "inputs": [[2, 0, 0], [1, 0, 0]]}], 3)
    (tmp_path / "big-symbol.json").write_text(json.dumps(big))
    np.save(tmp_path / "x.npy", np.ones((1, 1), np.float32))
    r = _run_limited(["-c", "from hybridize.cli import main; main()", "run", "big-symbol.json",
                      "--input", "x.npy", "--executor", "interpret"], cwd=tmp_path)
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
    # the node whose array did not fit, and what it asked for
    assert r.stderr.startswith("hybridize run: big-symbol.json: out of memory at node 'a1' (broadcast_add): "
                               "it needed 1 GiB (1073741824 bytes)"), r.stderr


def test_block_load_of_a_garbled_model_file_is_a_load_error(tmp_path) -> None:
    from hybridize.runtime import nd
    from hybridize.runtime.base import LoadError
    from hybridize.runtime.gluon import nn

    def build():
        net = nn.HybridSequential()
        net.add(nn.Dense(3, in_units=4))
        net.initialize()
        return net

    net = build()
    net.save(str(tmp_path / "m"))
    again = build()
    again.load(str(tmp_path / "m"))
    x = nd.ones((1, 4))
    assert np.array_equal(again(x).asnumpy(), net(x).asnumpy())
    for text, problem in (("{not json", "not a model file written by Block.save"),
                          ('{"other": {}}', "does not describe this block's structure"),
                          (b"\xff\xfe", "not a model file written by Block.save")):
        path = tmp_path / "m-model.json"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        with pytest.raises(LoadError, match=problem) as info:
            build().load(str(tmp_path / "m"))
        assert info.value.path == str(path)
    with pytest.raises(LoadError, match="no such file"):
        build().load(str(tmp_path / "nothing"))
