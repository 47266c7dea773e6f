"""Training code written for MXNet 1.9.1 runs unchanged on the runtime, and through ``hybridize
transpile``, with MXNet's numbers. The scripts in ``sweep/`` follow real training loops (d2l 1.x
``train_ch3``/``train_ch5`` and 2.x np-mode chapters 3/6/8, gluon-cv's classification loop with
``split_and_load`` on two contexts, warmup + cosine schedule, ``clip_global_norm`` and a
checkpoint/resume, gluon-nlp's BERT fine-tuning with gradient accumulation and its word language model
with an LSTM, the Module API's ``fit``, float16 with ``multi_precision`` and ``record(train_mode=False)``);
each trains a few steps from fixed data and parameters. Every logged value (losses, gradient norms,
learning rates, metrics) and every final parameter equals MXNet's run (tools/record_training_sweep.py):
rtol 1e-4, atol 1e-5; the float16 network's losses and parameters to rtol 2e-3 (float16's
resolution is 1e-3, and MXNet rounds its float16 elementwise results in places the runtime may not).
Dropout is off in every script (MXNet's random stream is not reproduced)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from sweep_support import NAMES, SCRIPTS, run_transpiled, run_unchanged, transpile_one

RECORD = np.load(__import__("pathlib").Path(__file__).parent / "fixtures" / "training_sweep.npz")


def _check(name: str, result: dict) -> None:
    recorded = {k[len(name) + 1:] for k in RECORD.files if k.startswith(name + "/")}
    ours = {k for k in result if k != "params"} | {f"params/{p}" for p in result["params"]}
    assert ours == recorded, f"{name}: keys differ: {sorted(ours ^ recorded)}"
    for key in sorted(recorded):
        got = result["params"][key[len("params/"):]] if key.startswith("params/") else result[key]
        got = np.asarray([float(v) for v in got]) if not key.startswith("params/") else np.asarray(got)
        rtol = 2e-3 if "half" in key else 1e-4
        np.testing.assert_allclose(got, RECORD[f"{name}/{key}"], rtol=rtol, atol=1e-5, err_msg=f"{name}: {key}")


def test_every_script_has_a_recording() -> None:
    assert NAMES == sorted({k.split("/")[0] for k in RECORD.files})


@pytest.mark.parametrize("name", NAMES)
def test_script_runs_unchanged_with_mxnets_numbers(name: str) -> None:
    _check(name, run_unchanged(name))


def _imports_mapped(source: str) -> list[str]:
    """The source with its ``mxnet`` imports spelled ``hybridize.runtime``: what the transpiler writes
    for a script without ``hybrid_forward`` methods."""
    return [re.sub(r"^(\s*)(from|import) mxnet\b", r"\1\2 hybridize.runtime", line) for line in source.splitlines()]


@pytest.mark.parametrize("name", NAMES)
def test_transpiled_script_gives_mxnets_numbers(tmp_path, name: str) -> None:
    """A transpiled script whose only changes are its import lines binds the same runtime objects
    and runs the same statements as the unchanged run above, so its text is checked and it is not
    run again (the suite's time); one with rewritten code (``@static_graph`` hybrid_forward) runs."""
    path, report = transpile_one(name, tmp_path)
    assert "HY012" not in report and "Transpiled 1 of 1 module" in report, report
    text = path.read_text()
    assert "import mxnet" not in text and "from mxnet" not in text
    header, *lines = text.splitlines()
    assert header.startswith("# Transpiled by hybridize")
    if lines[1:] == _imports_mapped((SCRIPTS / f"{name}.py").read_text()):
        return
    assert "@static_graph" in text, f"{name}: rewritten beyond its imports"
    _check(name, run_transpiled(path, name))


def test_scripts_with_hybrid_forward_are_rewritten_and_run() -> None:
    rewritten = [n for n in NAMES if "def hybrid_forward" in (SCRIPTS / f"{n}.py").read_text()]
    assert sorted(rewritten) == ["bertadam", "fp16_resume", "gluonts_fit", "lstm_lm", "nlp_accum"]
