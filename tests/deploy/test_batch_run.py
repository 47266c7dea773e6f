"""Batch inference with ``hybridize run``: several files for an input, or one ``.npz`` holding
several arrays, run the model once per item; items may differ in shape."""
from __future__ import annotations

import numpy as np
from click.testing import CliRunner

from support import FIXTURES, require_shared

MLP = FIXTURES / "models" / "seed_mlp"


def run(*args):
    from hybridize.cli import main

    try:
        runner = CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, ["run", *map(str, args)])


def _items(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [rng.standard_normal((k + 1, 512)).astype(np.float32) for k in range(n)]  # batch sizes 1, 2, 3...


def _expected(xs: list[np.ndarray]) -> list[np.ndarray]:
    from hybridize.runtime.graph.model import Model

    model = Model.load(MLP / "model-symbol.json")
    return [model.run(x)[0] for x in xs]


def test_several_files_for_the_sole_input_are_a_batch(tmp_path) -> None:
    require_shared()
    xs = _items(3)
    for k, x in enumerate(xs):
        np.save(tmp_path / f"x{k}.npy", x)
    r = run(MLP / "model-symbol.json", "-i", tmp_path / "x0.npy", "-i", f"data={tmp_path / 'x1.npy'}",
            "-i", tmp_path / "x2.npy", "-o", tmp_path / "y.npz")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines() == [f"item{k} out0 dense2_fwd_output: shape ({k + 1}, 2), dtype float32"
                                     for k in range(3)]
    with np.load(tmp_path / "y.npz") as z:
        assert sorted(z.files) == ["out0_0", "out0_1", "out0_2"]
        for k, y in enumerate(_expected(xs)):
            np.testing.assert_array_equal(z[f"out0_{k}"], y)


def test_one_npz_holding_a_batch(tmp_path) -> None:
    require_shared()
    xs = _items(4)
    np.savez(tmp_path / "batch.npz", *xs)  # arr_0 ... arr_3, in file order
    r = run(MLP / "model-symbol.json", "--input", tmp_path / "batch.npz", "-o", tmp_path / "y.npz")
    assert r.exit_code == 0, r.stderr
    assert len(r.stdout.splitlines()) == 4
    with np.load(tmp_path / "y.npz") as z:
        for k, y in enumerate(_expected(xs)):
            np.testing.assert_array_equal(z[f"out0_{k}"], y)
    # and the MXNet-recorded sample, among others, gives MXNet's answer
    io = np.load(MLP / "io.npz")
    np.savez(tmp_path / "mixed.npz", first=xs[0], recorded=io["x"])
    r = run(MLP / "model-symbol.json", "--input", tmp_path / "mixed.npz", "-o", tmp_path / "m.npz")
    assert r.exit_code == 0, r.stderr
    with np.load(tmp_path / "m.npz") as z:
        np.testing.assert_allclose(z["out0_1"], io["y"], rtol=1e-4, atol=1e-5)


def test_a_single_item_input_is_shared_by_every_run(tmp_path) -> None:
    from hybridize.runtime import sym

    a, b = sym.var("a"), sym.var("b")
    sym.broadcast_mul(a, b, name="prod").save(str(tmp_path / "m-symbol.json"))
    rows = [np.full((2, 3), k, np.float32) for k in range(3)]
    np.savez(tmp_path / "a.npz", *rows)
    np.save(tmp_path / "b.npy", np.arange(3, dtype=np.float32))
    r = run(tmp_path / "m-symbol.json", "-i", f"a={tmp_path / 'a.npz'}", "-i", f"b={tmp_path / 'b.npy'}",
            "-o", tmp_path / "y.npz")
    assert r.exit_code == 0, r.stderr
    with np.load(tmp_path / "y.npz") as z:
        for k in range(3):
            np.testing.assert_array_equal(z[f"out0_{k}"], rows[k] * np.arange(3))


def test_a_bad_item_names_its_file_and_item_and_writes_nothing(tmp_path) -> None:
    require_shared()
    np.save(tmp_path / "good.npy", _items(1)[0])
    np.save(tmp_path / "bad.npy", np.zeros((1, 7), np.float32))
    r = run(MLP / "model-symbol.json", "-i", tmp_path / "good.npy", "-i", tmp_path / "bad.npy",
            "-o", tmp_path / "y.npz")
    assert r.exit_code == 1
    assert r.stderr.startswith(f"hybridize run: {tmp_path / 'bad.npy'}: item 1: input 'data': got shape (1, 7), "
                               "which does not fit the model at FullyConnected 'dense0_fwd'")
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "y.npz").exists()
    assert r.stdout == ""  # no report of the items that ran before
