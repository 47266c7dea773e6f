"""``hybridize export-onnx``, ``hybridize run --backend onnxruntime``, ``mx.onnx.export_model``
(MXNet's signature: paths or objects, old argument names) and the failures: each one line, exit
1 or 2, no file left behind."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import model_support as ms
from onnx_support import checked, dim_values, onnx, run

MLP = ms.model_dir("seed_mlp")


def _cli(*args: str):
    from hybridize.cli import main
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_export_onnx_cli_writes_a_checked_model_with_a_dynamic_batch(tmp_path) -> None:
    out = tmp_path / "mlp.onnx"
    code, stdout, stderr = _cli("export-onnx", str(MLP / "model-symbol.json"), "-o", str(out),
                                "--input", "data=2,512", "--dynamic-batch", "--opset", "13")
    assert (code, stderr) == (0, "")
    assert stdout == f"wrote {out} (ONNX opset 13; inputs data (N, 512))\n"
    model = checked(onnx.load(str(out)))          # params found beside the JSON, as hybridize run
    assert model.opset_import[0].version == 13
    assert dim_values(model.graph.input[0]) == [None, 512]
    assert [o.name for o in model.graph.output] == ["dense2_fwd"]      # MXNet's exporter's name
    x = ms.io("seed_mlp")["x"]
    for xb in (x, np.concatenate([x, x[:1] * 2])):
        np.testing.assert_allclose(run(model, {"data": xb})[0][:2], ms.io("seed_mlp")["y"] if len(xb) == 2
                                   else run(model, {"data": xb[:2]})[0], rtol=1e-5, atol=1e-6)


def test_run_with_the_onnxruntime_backend_gives_the_numpy_backends_outputs(tmp_path) -> None:
    io = ms.io("seed_mlp")
    np.save(tmp_path / "x.npy", io["x"])
    outs = {}
    for backend in ("numpy", "onnxruntime"):
        code, stdout, stderr = _cli("run", str(MLP / "model-symbol.json"), "--input", str(tmp_path / "x.npy"),
                                    "--backend", backend, "-o", str(tmp_path / f"{backend}.npz"))
        assert (code, stderr) == (0, "")
        assert stdout == "out0 dense2_fwd_output: shape (2, 2), dtype float32\n"
        outs[backend] = np.load(tmp_path / f"{backend}.npz")["out0"]
    np.testing.assert_allclose(outs["onnxruntime"], io["y"], **ms.tolerance("seed_mlp", io["y"]))
    np.testing.assert_allclose(outs["onnxruntime"], outs["numpy"], rtol=1e-5, atol=1e-6)
    code, _, stderr = _cli("run", str(MLP / "model-symbol.json"), "--input", str(tmp_path / "x.npy"),
                           "--backend", "onnxruntime", "--executor", "interpret")
    assert code == 2 and stderr.count("\n") == 1 and "--executor interpret applies to the numpy backend" in stderr


def _unsupported_graph(tmp_path):
    import json
    doc = {"nodes": [{"op": "null", "name": "data", "inputs": []},
                     {"op": "relu", "name": "act", "inputs": [[0, 0, 0]]},
                     {"op": "_contrib_box_nms", "name": "nms0", "inputs": [[1, 0, 0]]}],
           "arg_nodes": [0], "heads": [[2, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}
    path = tmp_path / "nms-symbol.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("kind", ["unsupported op", "missing params", "unwritable output", "bad shape",
                                  "unknown input", "bad opset"])
def test_export_onnx_failures_are_one_line_and_write_nothing(kind: str, tmp_path) -> None:
    out = tmp_path / "out.onnx"
    sym = str(MLP / "model-symbol.json")
    args = {"unsupported op": [str(_unsupported_graph(tmp_path)), "-o", str(out), "--input", "data=1,6,6"],
            "missing params": [sym, "--params", str(tmp_path / "none.params"), "-o", str(out), "--input", "2,512"],
            "unwritable output": [sym, "-o", str(tmp_path / "no" / "dir" / "out.onnx"), "--input", "data=2,512"],
            "bad shape": [sym, "-o", str(out), "--input", "data=2,-512"],
            "unknown input": [sym, "-o", str(out), "--input", "image=2,512"],
            "bad opset": [sym, "-o", str(out), "--input", "data=2,512", "--opset", "7"]}[kind]
    code, stdout, stderr = _cli("export-onnx", *args)
    expected = {"unsupported op": (1, "nms-symbol.json: operator _contrib_box_nms (node 'nms0') has no ONNX "
                                      "equivalent in this exporter"),
                "missing params": (1, "none.params: no such file"),
                "unwritable output": (1, "out.onnx: cannot write: No such file or directory"),
                "bad shape": (2, "--input 'data=2,-512': bad shape '2,-512'"),
                "unknown input": (2, "the model has no input 'image' (its inputs: data)"),
                "bad opset": (1, "opset 7 is not supported")}[kind]
    assert code == expected[0], stderr
    assert stderr.startswith("hybridize export-onnx: ") and stderr.count("\n") == 1
    assert expected[1] in stderr
    assert stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".json") == []


def test_parameters_missing_from_the_file_are_named(tmp_path) -> None:
    from hybridize.runtime.graph import params as P

    values = P.strip_prefixes(P.load(MLP / "model-0000.params"))
    del values["dense1_bias"]
    P.save(tmp_path / "part.params", values)
    code, _, stderr = _cli("export-onnx", str(MLP / "model-symbol.json"), "--params", str(tmp_path / "part.params"),
                           "-o", str(tmp_path / "o.onnx"), "--input", "data=2,512")
    assert code == 1
    assert stderr == (f"hybridize export-onnx: {tmp_path / 'part.params'}: missing parameter 'dense1_bias' "
                      "(needed by FullyConnected 'dense1_fwd')\n")
    assert not (tmp_path / "o.onnx").exists()


def test_mx_onnx_export_model_takes_mxnets_arguments(tmp_path) -> None:
    import hybridize.runtime as mx
    from hybridize.runtime.graph import params as P
    from hybridize.transpile.emit.imports import map_module

    assert map_module("mxnet.onnx") == "hybridize.runtime.onnx"
    io = ms.io("seed_mlp")
    sym = mx.sym.load(str(MLP / "model-symbol.json"))
    args, aux = P.split_arg_aux(P.load(MLP / "model-0000.params"))
    nd_args = {k: mx.nd.array(v) for k, v in args.items()}
    paths = [mx.onnx.export_model(str(MLP / "model-symbol.json"), str(MLP / "model-0000.params"), [(2, 512)],
                                  np.float32, str(tmp_path / "a.onnx")),
             mx.onnx.export_model(sym, [nd_args, aux], input_shape=[(2, 512)], input_type=np.float32,
                                  onnx_file_path=str(tmp_path / "b.onnx"), dynamic=True),
             mx.onnx.export_model(sym, nd_args, in_shapes=[(2, 512)], onnx_file_path=str(tmp_path / "c.onnx"),
                                  run_shape_inference=True, verbose=True)]
    assert paths == [str(tmp_path / f"{c}.onnx") for c in "abc"]
    for p in paths:
        model = checked(onnx.load(p))
        np.testing.assert_allclose(run(model, {"data": io["x"]})[0], io["y"], **ms.tolerance("seed_mlp", io["y"]))
    assert dim_values(onnx.load(paths[1]).graph.input[0]) == [None, None]   # dynamic=True: every axis
    with pytest.raises(mx.onnx.ExportError, match=r"set dynamic=True"):
        mx.onnx.export_model(sym, nd_args, [(2, 512)], dynamic_input_shapes=[(None, 512)],
                             onnx_file_path=str(tmp_path / "d.onnx"))
    with pytest.raises(mx.onnx.ExportError, match=r"in_shapes gives 2 shape\(s\) for the model's 1 input\(s\) \(data\)"):
        mx.onnx.export_model(sym, nd_args, [(2, 512), (1,)], onnx_file_path=str(tmp_path / "d.onnx"))
    assert not (tmp_path / "d.onnx").exists()


def test_the_numpy_runtime_imports_neither_onnx_nor_onnxruntime() -> None:
    code = ("import sys, numpy as np\n"
            "import hybridize.runtime as mx\n"
            "from hybridize.runtime.graph.model import Model\n"
            f"m = Model.load({str(MLP / 'model-symbol.json')!r})\n"
            "m.run(np.ones((2, 512), np.float32))\n"
            "assert mx.onnx.export_model\n"
            "print(sorted(k for k in sys.modules if k.split('.')[0] in ('onnx', 'onnxruntime')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"


def test_dynamic_batch_leaves_inputs_without_a_batch_axis_static(tmp_path) -> None:
    cf = Path(__file__).resolve().parent.parent / "runtime" / "data" / "control_flow"
    out = tmp_path / "loop.onnx"
    code, stdout, stderr = _cli("export-onnx", str(cf / "while_loop-symbol.json"), "-o", str(out),
                                "--input", "data0=2,3", "--input", "data1=1", "--dynamic-batch")
    assert (code, stderr) == (0, "")
    assert stdout == f"wrote {out} (ONNX opset 17; inputs data1 (1,), data0 (N, 3))\n"
    model = checked(onnx.load(str(out)))
    io = np.load(cf / "control-flow-io.npz")
    x3 = np.concatenate([io["x"], io["x"][:1]])
    ys = run(model, {"data0": x3, "data1": io["loop_a_limit"]})
    assert ys[3].shape == (3, 3)
    np.testing.assert_allclose(ys[3][:2], io["loop_a_y3"], rtol=1e-5, atol=1e-6)


def test_without_onnx_installed_export_is_one_clear_line(tmp_path, monkeypatch) -> None:
    import hybridize.runtime as mx

    for mod in ("onnx", "onnxruntime"):
        monkeypatch.setitem(sys.modules, mod, None)       # `import onnx` raises ImportError
    with pytest.raises(mx.onnx.ExportError, match=r"needs the onnx package: pip install 'hybridize\[onnx\]'"):
        mx.onnx.export_model(str(MLP / "model-symbol.json"), str(MLP / "model-0000.params"), [(2, 512)],
                             onnx_file_path=str(tmp_path / "m.onnx"))
    code, stdout, stderr = _cli("export-onnx", str(MLP / "model-symbol.json"), "-o", str(tmp_path / "m.onnx"),
                                "--input", "data=2,512")
    assert code == 1 and stdout == "" and stderr.count("\n") == 1
    assert "needs the onnx package" in stderr
    np.save(tmp_path / "x.npy", ms.io("seed_mlp")["x"])
    code, _, stderr = _cli("run", str(MLP / "model-symbol.json"), "--input", str(tmp_path / "x.npy"),
                           "--backend", "onnxruntime")
    assert code == 1 and stderr.count("\n") == 1 and "needs the onnx package" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]
