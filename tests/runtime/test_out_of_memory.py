"""Memory running out while a model runs is one line naming the node and the bytes it needed, from both
executors and wherever the allocation happens (constants precomputed at bind time, a step of the
forward function, an emitter's constant at compile time), never "internal error".

The child process runs ``hybridize run`` under an address-space limit (RLIMIT_AS) of 1.5 GiB and asks
for 1.6 GB arrays: the allocation fails at once, nothing is touched, the test stays fast."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux applies it")

BIG = (20000, 20000)     # 1.6e9 bytes of float32
NEEDED = "1.5 GiB (1600000000 bytes)"

CHILD = r'''
import contextlib, io, json, resource, sys
from hybridize.cli import main
resource.setrlimit(resource.RLIMIT_AS, (1536 * 1024 ** 2, resource.getrlimit(resource.RLIMIT_AS)[1]))
results = []
for args in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(["run", *args], prog_name="hybridize", standalone_mode=False)
        except SystemExit as e:
            code = e.code
    results.append([code, err.getvalue()])
print(json.dumps(results))
'''


def _symbol(path: Path, nodes: list[dict]) -> Path:
    nodes = [{"op": "null", "name": "data", "inputs": []}] + nodes
    path.write_text(json.dumps({"nodes": nodes, "arg_nodes": [0], "node_row_ptr": list(range(len(nodes) + 1)),
                                "heads": [[len(nodes) - 1, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}))
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[tuple[str, str], tuple[int, str]]:
    d = tmp_path_factory.mktemp("oom")
    np.save(d / "x.npy", np.ones((1, 1), np.float32))
    models = {
        # a constant: computed once per bind_params by the compiled program's prologue
        "constant": _symbol(d / "constant-symbol.json", [
            {"op": "_ones", "name": "big_ones", "attrs": {"shape": str(BIG)}, "inputs": []},
            {"op": "broadcast_add", "name": "plus", "inputs": [[0, 0, 0], [1, 0, 0]]}]),
        # depends on the input: a step of the forward function
        "step": _symbol(d / "step-symbol.json", [
            {"op": "tile", "name": "wide", "attrs": {"reps": str(BIG)}, "inputs": [[0, 0, 0]]},
            {"op": "sum", "name": "total", "inputs": [[1, 0, 0]]}]),
        # a step writing into the compiled program's planned buffers (one arena made on the first call)
        "buffers": _symbol(d / "buffers-symbol.json", [
            {"op": "broadcast_to", "name": "wide", "attrs": {"shape": str(BIG)}, "inputs": [[0, 0, 0]]},
            {"op": "sigmoid", "name": "act", "inputs": [[1, 0, 0]]},
            {"op": "sum", "name": "total", "inputs": [[2, 0, 0]]}]),
    }
    cases = [(m, ex) for m in models for ex in ("compiled", "interpret")]
    args = [[str(models[m]), "-i", str(d / "x.npy"), "--executor", ex] for m, ex in cases]
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(args)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {case: tuple(r) for case, r in zip(cases, json.loads(done.stdout))}


@pytest.mark.parametrize("executor", ["compiled", "interpret"])
@pytest.mark.parametrize("model, node, op", [("constant", "big_ones", "_ones"), ("step", "wide", "tile")])
def test_out_of_memory_names_the_node_and_the_bytes(runs, model, node, op, executor) -> None:
    code, err = runs[(model, executor)]
    assert code == 1
    assert err.count("\n") == 1, err
    assert f"out of memory at node '{node}' ({op})" in err, err
    assert "it needed" in err and "bytes)" in err, err
    assert "internal error" not in err
    if model == "constant":
        assert NEEDED in err, err


def test_the_compiled_prologue_says_when(runs) -> None:
    assert "while precomputing constants" in runs[("constant", "compiled")][1]


def test_the_compiled_programs_buffers_name_their_largest_node(runs) -> None:
    code, err = runs[("buffers", "compiled")]
    assert code == 1 and err.count("\n") == 1, err
    assert "out of memory allocating the compiled program's buffers: they need 1.5 GiB (1600000000 bytes), " \
           "the largest 1600000000 bytes for node 'act'" in err, err
    code, err = runs[("buffers", "interpret")]
    assert code == 1 and "out of memory at node 'act' (sigmoid): it needed " + NEEDED in err, err
