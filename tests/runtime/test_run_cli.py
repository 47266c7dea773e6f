"""``hybridize run``: model fixtures reproduce MXNet's outputs through the command line, and every
bad input is one line on stderr with exit status 1 (bad file/data) or 2 (usage), no traceback."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

import model_support as ms

# every model whose parameters are shipped, plus a medium and a big one rebuilt from the recipe
CLI_MODELS = [m for m in ("seed_mlp", "seed_hybridnet", "mobilenet0.25", "mobilenetv2_0.25",
                          "squeezenet1.0", "squeezenet1.1") if ms.shipped(m)] + ["resnet18_v1", "inceptionv3"]


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()


def invoke(*args: str):
    from hybridize.cli import main

    return _runner().invoke(main, ["run", *map(str, args)])


def _write_recipe_params(name: str, path) -> None:
    """An export-style file (arg:/aux: keys) rebuilt from the recipe."""
    from hybridize.runtime.graph import mxnet_json, params

    graph = mxnet_json.load(ms.model_dir(name) / "model-symbol.json")
    aux = {n.name for n in graph.aux_variables()}
    values = ms.recipe_params(name)
    params.save(path, params.join_arg_aux({k: v for k, v in values.items() if k not in aux},
                                          {k: v for k, v in values.items() if k in aux}))


@pytest.mark.parametrize("name", CLI_MODELS)
def test_run_matches_mxnet(name: str, tmp_path) -> None:
    io = ms.io(name)
    x = tmp_path / "x.npy"
    np.save(x, io["x"])
    args = [ms.model_dir(name) / "model-symbol.json", "--input", f"data={x}", "--output", tmp_path / "y.npz"]
    if not ms.shipped(name):
        _write_recipe_params(name, tmp_path / "p.params")
        args += ["--params", tmp_path / "p.params"]
    r = invoke(*args)
    assert r.exit_code == 0, r.stderr
    shape = ", ".join(map(str, io["y"].shape))
    assert r.stdout.strip().splitlines()[0].endswith(f": shape ({shape}), dtype float32")
    with np.load(tmp_path / "y.npz") as z:
        assert z.files == ["out0"]
        np.testing.assert_allclose(z["out0"], io["y"], **ms.tolerance(name, io["y"]))


def test_sole_input_without_name_and_npz_input(tmp_path) -> None:
    io = ms.io("seed_mlp")
    np.savez(tmp_path / "x.npz", whatever=io["x"])
    r = invoke(ms.model_dir("seed_mlp") / "model-symbol.json", "--input", tmp_path / "x.npz",
               "--output", tmp_path / "o.npz", "--executor", "interpret")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "out0 dense2_fwd_output: shape (2, 2), dtype float32\n"
    with np.load(tmp_path / "o.npz") as z:
        np.testing.assert_allclose(z["out0"], io["y"], rtol=1e-4, atol=1e-5)


def test_output_npy_holds_the_one_output_and_is_refused_for_several(tmp_path) -> None:
    io = ms.io("seed_mlp")
    np.save(tmp_path / "x.npy", io["x"])
    graph = ms.model_dir("seed_mlp") / "model-symbol.json"
    r = invoke(graph, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy")
    assert r.exit_code == 0, r.stderr
    np.testing.assert_allclose(np.load(tmp_path / "y.npy", allow_pickle=False), io["y"], rtol=1e-4, atol=1e-5)
    r = invoke(graph, "--input", tmp_path / "x.npy", "--input", tmp_path / "x.npy", "--output", tmp_path / "two.npy")
    assert r.exit_code == 2 and not (tmp_path / "two.npy").exists()
    assert r.stderr.count("\n") == 1 and "a .npy holds one array, and this run makes 2" in r.stderr


def test_console_entry_point_subprocess(tmp_path) -> None:
    io = ms.io("seed_hybridnet")
    np.save(tmp_path / "x.npy", io["x"])
    p = subprocess.run([sys.executable, "-m", "hybridize.cli", "run",
                        str(ms.model_dir("seed_hybridnet") / "model-symbol.json"),
                        "--input", str(tmp_path / "x.npy"), "-o", str(tmp_path / "y.npz")],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("out0 ")
    with np.load(tmp_path / "y.npz") as z:
        np.testing.assert_allclose(z["out0"], io["y"], rtol=1e-4, atol=1e-5)
    # and a failure through the real entry point: one line, no traceback
    p = subprocess.run([sys.executable, "-m", "hybridize.cli", "run", str(tmp_path / "nope-symbol.json"),
                        "--input", str(tmp_path / "x.npy")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1
    assert p.stderr == f"hybridize run: {tmp_path / 'nope-symbol.json'}: no such file\n"


# -- bad input ---------------------------------------------------------------------------------------
MLP = ms.model_dir("seed_mlp")


def fails(code: int, *args) -> str:
    r = invoke(*args)
    assert r.exit_code == code, (r.exit_code, r.stdout, r.stderr)
    err = r.stderr
    assert err.startswith("hybridize run: ") and err.endswith("\n")
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert r.stdout == ""
    return err.rstrip("\n")


@pytest.fixture
def x_npy(tmp_path):
    p = tmp_path / "x.npy"
    np.save(p, ms.io("seed_mlp")["x"])
    return p


def test_truncated_params(tmp_path, x_npy) -> None:
    bad = tmp_path / "trunc.params"
    raw = (MLP / "model-0000.params").read_bytes()
    bad.write_bytes(raw[:5000])
    err = fails(1, MLP / "model-symbol.json", "--params", bad, "--input", x_npy)
    assert err == (f"hybridize run: {bad}: truncated at byte 5000 while reading array #0 (of 6): "
                   "its data of shape (256, 512) float32 needs 524288 bytes, 4936 remain")


def test_garbled_params(tmp_path, x_npy) -> None:
    bad = tmp_path / "garbled.params"
    raw = bytearray((MLP / "model-0000.params").read_bytes())
    raw[24:28] = b"\x00\x00\x00\x7f"
    bad.write_bytes(bytes(raw))
    err = fails(1, MLP / "model-symbol.json", "--params", bad, "--input", x_npy)
    assert err.startswith(f"hybridize run: {bad}: garbled: array #0 (of 6)")
    bad.write_bytes(b"\x00" * 100)
    assert "not an MXNet parameter file" in fails(1, MLP / "model-symbol.json", "--params", bad, "--input", x_npy)


def test_not_a_symbol_json(tmp_path, x_npy) -> None:
    p = tmp_path / "net-symbol.json"
    p.write_text('{"hello": "world"}')
    err = fails(1, p, "--input", x_npy)
    assert err == f"hybridize run: {p}: not a symbol JSON (missing 'nodes')"
    err = fails(1, MLP / "io.npz", "--input", x_npy)
    assert "not a symbol JSON" in err


def test_unknown_op_is_named(tmp_path, x_npy) -> None:
    doc = json.loads((MLP / "model-symbol.json").read_text())
    doc["nodes"][4]["op"] = "FancyReLU"
    p = tmp_path / "net-symbol.json"
    p.write_text(json.dumps(doc))
    err = fails(1, p, "--params", MLP / "model-0000.params", "--input", x_npy)
    assert err == f"hybridize run: {p}: node 4 'dense0_relu_fwd': unknown operator 'FancyReLU'"


def test_missing_parameter_is_named(tmp_path, x_npy) -> None:
    from hybridize.runtime.graph import params

    values = params.load(MLP / "model-0000.params")
    del values["arg:dense1_weight"]
    p = tmp_path / "partial.params"
    params.save(p, values)
    err = fails(1, MLP / "model-symbol.json", "--params", p, "--input", x_npy)
    assert err == (f"hybridize run: {p}: missing parameter 'dense1_weight' "
                   "(needed by FullyConnected 'dense1_fwd')")


def test_wrong_input_shape(tmp_path) -> None:
    bad = tmp_path / "bad.npy"
    np.save(bad, np.zeros((2, 100), np.float32))
    err = fails(1, MLP / "model-symbol.json", "--input", f"data={bad}")
    assert err.startswith(f"hybridize run: {bad}: input 'data': got shape (2, 100), which does not fit the model "
                          "at FullyConnected 'dense0_fwd'")
    assert "expected shape (256, 100), got (256, 512)" in err


def test_wrong_input_shape_against_declared_shape(tmp_path) -> None:
    from hybridize.runtime import sym

    x = sym.var("data", shape=(1, 3, 8, 8))
    y = sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="avg", name="pool")
    y.save(str(tmp_path / "pool-symbol.json"))
    good, bad = tmp_path / "good.npy", tmp_path / "bad.npy"
    np.save(good, np.ones((1, 3, 8, 8), np.float32))
    np.save(bad, np.ones((1, 3, 9, 9), np.float32))
    r = invoke(tmp_path / "pool-symbol.json", "--input", good)
    assert r.exit_code == 0 and r.stdout == "out0 pool_output: shape (1, 3, 4, 4), dtype float32\n"
    err = fails(1, tmp_path / "pool-symbol.json", "--input", bad)
    assert err.startswith(f"hybridize run: {bad}: input 'data': got shape (1, 3, 9, 9), expected (1, 3, 8, 8)")


def test_missing_files(tmp_path, x_npy) -> None:
    nope = tmp_path / "nope-symbol.json"
    assert fails(1, nope, "--input", x_npy) == f"hybridize run: {nope}: no such file"
    assert fails(1, MLP / "model-symbol.json", "--input", tmp_path / "nope.npy") == \
        f"hybridize run: {tmp_path / 'nope.npy'}: no such file"
    assert fails(1, MLP / "model-symbol.json", "--params", tmp_path / "nope.params", "--input", x_npy) == \
        f"hybridize run: {tmp_path / 'nope.params'}: no such file"


def test_bad_input_files(tmp_path) -> None:
    junk = tmp_path / "junk.npy"
    junk.write_bytes(b"definitely not numpy")
    assert "not a .npy or .npz file" in fails(1, MLP / "model-symbol.json", "--input", junk)
    empty = tmp_path / "empty.npz"
    np.savez(empty)
    assert fails(1, MLP / "model-symbol.json", "--input", empty) == \
        f"hybridize run: {empty}: holds no arrays; an input file must hold at least one"
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    assert "pickled objects" in fails(1, MLP / "model-symbol.json", "--input", obj)


def test_usage_errors(x_npy) -> None:
    assert fails(2) == "hybridize run: Missing argument 'GRAPH-symbol.json'. (see hybridize run --help)"
    assert "No such option" in fails(2, MLP / "model-symbol.json", "--bogus")
    assert fails(2, MLP / "model-symbol.json") == "hybridize run: no --input given (the model's inputs: data)"
    assert fails(2, MLP / "model-symbol.json", "--input", f"label={x_npy}") == \
        f"hybridize run: --input label={x_npy}: the model has no input 'label' (its inputs: data)"


def test_unwritable_output(tmp_path, x_npy) -> None:
    r = invoke(MLP / "model-symbol.json", "--input", x_npy, "--output", tmp_path / "no" / "dir" / "y.npz")
    assert r.exit_code == 1
    assert r.stderr.startswith(f"hybridize run: {tmp_path / 'no' / 'dir' / 'y.npz'}: cannot write")
    assert not (tmp_path / "no").exists()


def test_help() -> None:
    r = invoke("--help")
    assert r.exit_code == 0 and "--input" in r.stdout and "--params" in r.stdout


def test_several_inputs_and_outputs(tmp_path) -> None:
    from hybridize.runtime import sym

    a, b = sym.var("a"), sym.var("b")
    parts = sym.split(sym.broadcast_add(a, b), num_outputs=2, axis=1, name="parts")
    sym.Group([parts[0], parts[1]]).save(str(tmp_path / "two-symbol.json"))
    xa, xb = np.arange(8, dtype=np.float32).reshape(2, 4), np.ones((1, 4), np.float32)
    np.save(tmp_path / "a.npy", xa)
    np.save(tmp_path / "b.npy", xb)
    r = invoke(tmp_path / "two-symbol.json", "--input", f"b={tmp_path / 'b.npy'}",
               "--input", f"a={tmp_path / 'a.npy'}", "-o", tmp_path / "o.npz")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == ("out0 parts_output0: shape (2, 2), dtype float32\n"
                        "out1 parts_output1: shape (2, 2), dtype float32\n")
    with np.load(tmp_path / "o.npz") as z:
        assert z.files == ["out0", "out1"]
        np.testing.assert_array_equal(np.concatenate([z["out0"], z["out1"]], axis=1), xa + xb)
    assert fails(2, tmp_path / "two-symbol.json", "--input", tmp_path / "a.npy") == \
        "hybridize run: the model has 2 unassigned input(s) (a, b); name each one with --input NAME=FILE"
    # a repeated input is a batch (tests/deploy/test_batch_run.py): every input needs as many items, or one
    assert fails(2, tmp_path / "two-symbol.json", "--input", f"a={tmp_path / 'a.npy'}",
                 "--input", f"a={tmp_path / 'a.npy'}", "--input", f"a={tmp_path / 'a.npy'}",
                 "--input", f"b={tmp_path / 'b.npy'}", "--input", f"b={tmp_path / 'b.npy'}") == \
        ("hybridize run: the inputs have different numbers of items (a: 3, b: 2); give each input 3 items "
         "or one, shared by every run")


def test_parameter_given_as_input(x_npy) -> None:
    err = fails(2, MLP / "model-symbol.json", "--input", f"dense0_bias={x_npy}")
    assert err == (f"hybridize run: --input dense0_bias={x_npy}: 'dense0_bias' is a parameter of the model, "
                   "not an input (its inputs: data)")
