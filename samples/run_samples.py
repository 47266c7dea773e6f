"""The main job on the bundled samples: check, transpile, run, export, and run the export.

    python samples/run_samples.py [--out DIR]        # default DIR: out/samples (git-ignored)

Steps, each a real command a user would type (run as subprocesses of this Python):

1. ``hybridize check samples/mxnet_style`` - the seed chapter's programs as written for MXNet;
   the only findings are the HybridNet's trace-time prints (HY008, warnings).
2. ``hybridize check samples/exercises`` - the chapter's exercises (``x.asnumpy()``, ``a += b``,
   ``a[:] = a + b``, ``if``/``for`` on data): every one is reported, exit code 1 as expected.
3. ``hybridize transpile samples/mxnet_style -o DIR`` - MXNet source -> modules that import no MXNet.
4. The chapter's programs run on ``hybridize.runtime`` (``samples/*.py``): ``fancy_func`` compiled
   from a string, the printing ``HybridNet`` (prints on every imperative call, once when
   hybridized), the MLP's 1000-forward benchmark before/after ``hybridize()``; then the transpiled
   ones, whose ``hybrid_forward`` is graph construction only (tensor prints became comments), and
   whose MLP writes ``export('my_mlp')``.
5. ``hybridize run DIR/mxnet_style/my_mlp-symbol.json`` executes that export, and the result is
   compared with the same network run in Python.
6. ``hybridize run`` on MXNet 1.9.1's own export of the seed MLP (``../shared/fixtures``),
   compared with MXNet's output.
7. The chapter's d2l 2.x programs (``samples/mxnet_np_style``: ``from mxnet import np, npx``,
   ``npx.set_np()``, ``F.npx.relu``): checked (only the HybridNet's trace-time prints, HY008),
   transpiled, run on ``hybridize.runtime`` with the arrays they print equal to what MXNet 1.9.1
   printed (``samples/mxnet_np_style/expected/``); the np-mode MLP's export run with
   ``hybridize run`` and compared with the same network in Python.

Exits non-zero (naming the step) if anything differs from what is expected.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "samples"
FIXTURES = REPO.parent / "shared" / "fixtures" / "mxnet" / "models"


class StepFailed(Exception):
    pass


def step(title: str) -> None:
    print(f"\n=== {title}", flush=True)


def run(args: list[str], *, cwd: Path = REPO, expect: int = 0) -> str:
    """Runs ``python -m hybridize.cli ARGS`` or ``python FILE``; echoes its output."""
    shown = " ".join(a if " " not in a else repr(a) for a in args)
    print(f"$ {shown}", flush=True)
    cmd = [sys.executable, "-m", "hybridize.cli", *args[1:]] if args[0] == "hybridize" else [sys.executable, *args]
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    sys.stdout.write(res.stdout)
    sys.stdout.write(res.stderr)
    if res.returncode != expect:
        raise StepFailed(f"`{shown}` exited {res.returncode}, expected {expect}")
    return res.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=REPO / "out" / "samples", help="output directory (replaced)")
    out: Path = ap.parse_args(argv).out.resolve()
    if out.exists():
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        step("1. check the seed chapter's programs (MXNet style)")
        report = run(["hybridize", "check", "--output-format", "concise", "--exit-zero", "samples/mxnet_style"])
        codes = sorted({line.split()[1] for line in report.splitlines() if ": HY" in line})
        if codes != ["HY008"]:
            raise StepFailed(f"expected only HY008 (trace-time print) warnings, got {codes}")

        step("2. check the chapter's exercises (every construct is reported)")
        report = run(["hybridize", "check", "--output-format", "concise", "samples/exercises"], expect=1)
        codes = [line.split()[1] for line in report.splitlines() if ": HY" in line]
        if codes != ["HY001", "HY002", "HY003", "HY004", "HY005"]:
            raise StepFailed(f"expected HY001..HY005 on the exercises, got {codes}")

        step("3. transpile the programs into modules that import no MXNet")
        run(["hybridize", "transpile", "samples/mxnet_style", "-o", str(out)])
        tree = out / "mxnet_style"
        for f in sorted(tree.glob("*.py")):
            if "mxnet" in "".join(ln for ln in f.read_text().splitlines(True) if ln.lstrip().startswith(("import", "from"))):
                raise StepFailed(f"{f} still imports mxnet")
        run(["hybridize", "transpile", "--show", "samples/mxnet_style/hybrid_net.py", "--diff"])

        step("4a. the chapter's programs on hybridize.runtime (samples/*.py)")
        run(["samples/fancy_func.py"])
        text = run(["samples/hybrid_net.py"])
        if text.count("F:  <module 'hybridize.runtime.ndarray'") != 2 or text.count("hybridize.runtime.symbol") != 1:
            raise StepFailed("HybridNet should print on both imperative calls and on the first hybridized one only")

        step("4b. the transpiled programs (hybrid_forward is static graph construction)")
        run([str(tree / "fancy_func.py")], cwd=tree)
        text = run([str(tree / "hybrid_net.py")], cwd=tree)
        values = [ln for ln in text.splitlines() if ln.startswith("[[")]
        if len(values) != 4 or len(set(values)) != 1 or "x: " in text:
            raise StepFailed("the transpiled HybridNet should give 4 equal outputs and print no tensors")
        run([str(tree / "hybrid_mlp.py")], cwd=tree)
        prefix = tree / "my_mlp"
        for suffix in ("-symbol.json", "-0000.params"):
            if not Path(str(prefix) + suffix).is_file():
                raise StepFailed(f"export('my_mlp') did not write my_mlp{suffix}")

        step("5. run the export with `hybridize run` and compare with Python")
        x = np.random.default_rng(0).standard_normal((4, 512)).astype(np.float32)
        np.save(out / "x.npy", x)
        run(["hybridize", "run", f"{prefix}-symbol.json", "--input", str(out / "x.npy"), "--output", str(out / "y.npz")])
        from hybridize.runtime import gluon, nd
        net = gluon.SymbolBlock.imports(f"{prefix}-symbol.json", ["data"], f"{prefix}-0000.params")
        want = net(nd.array(x)).asnumpy()
        got = np.load(out / "y.npz")["out0"]
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        print(f"hybridize run == SymbolBlock.imports: max |diff| = {np.abs(got - want).max():.2e}")

        step("6. run MXNet 1.9.1's own export of the seed MLP and compare with MXNet's output")
        fixture = FIXTURES / "seed_mlp"
        if not fixture.is_dir():
            print(f"skipped: {fixture} not found (../shared is beside the repository in CI)")
        else:
            io = np.load(fixture / "io.npz")
            np.save(out / "seed_x.npy", io["x"])
            run(["hybridize", "run", str(fixture / "model-symbol.json"), "--params", str(fixture / "model-0000.params"),
                 "--input", f"data={out / 'seed_x.npy'}", "--output", str(out / "seed_y.npz")])
            got = np.load(out / "seed_y.npz")["out0"]
            np.testing.assert_allclose(got, io["y"], rtol=1e-4, atol=1e-5)
            print(f"matches MXNet 1.9.1: max |diff| = {np.abs(got - io['y']).max():.2e}")
        np_style_steps(out)
    except (StepFailed, AssertionError) as e:
        print(f"\nrun_samples: FAILED: {e}", file=sys.stderr)
        return 1
    print(f"\nAll sample steps passed; outputs in {out}")
    return 0


def printed_arrays(text: str) -> list[list[float]]:
    """The numbers of every printed array line (``[[-1.19  0.027]]``): what the programs compute."""
    return [[float(v) for v in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", ln)]
            for ln in text.splitlines() if ln.startswith("[")]


def np_style_steps(out: Path) -> None:
    """Step 7: the d2l 2.x (np/npx) programs, checked, transpiled and run against MXNet's prints."""
    step("7a. check the chapter's d2l 2.x programs (mxnet.np / npx)")
    report = run(["hybridize", "check", "--output-format", "concise", "--exit-zero", "samples/mxnet_np_style"])
    codes = sorted({line.split()[1] for line in report.splitlines() if ": HY" in line})
    if codes != ["HY008"]:
        raise StepFailed(f"expected only HY008 (trace-time print) warnings, got {codes}")

    step("7b. transpile them (mxnet.np / npx -> hybridize.runtime)")
    run(["hybridize", "transpile", "samples/mxnet_np_style", "-o", str(out)])
    tree = out / "mxnet_np_style"
    for f in sorted(tree.glob("*.py")):
        if "mxnet" in "".join(ln for ln in f.read_text().splitlines(True) if ln.lstrip().startswith(("import", "from"))):
            raise StepFailed(f"{f} still imports mxnet")

    step("7c. run the transpiled programs: printed arrays equal MXNet 1.9.1's")
    expected = SAMPLES / "mxnet_np_style" / "expected"
    for program in ("hybrid_mlp", "hybrid_net"):
        got = printed_arrays(run([str(tree / f"{program}.py")], cwd=tree))
        want = printed_arrays((expected / f"{program}.out").read_text())
        if len(got) != len(want) or any(len(g) != len(w) for g, w in zip(got, want)):
            raise StepFailed(f"{program}: printed {len(got)} arrays {got}, MXNet 1.9.1 printed {want}")
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
        print(f"{program}: {len(got)} printed arrays equal MXNet 1.9.1's")

    step("7d. run the np-mode export with `hybridize run` and compare with Python")
    prefix = tree / "my_mlp"
    x = np.random.default_rng(1).standard_normal((3, 512)).astype(np.float32)
    np.save(out / "np_x.npy", x)
    run(["hybridize", "run", f"{prefix}-symbol.json", "--input", str(out / "np_x.npy"), "--output", str(out / "np_y.npz")])
    from hybridize.runtime import gluon, nd
    net = gluon.SymbolBlock.imports(f"{prefix}-symbol.json", ["data"], f"{prefix}-0000.params")
    want = net(nd.array(x)).asnumpy()
    got = np.load(out / "np_y.npz")["out0"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    print(f"hybridize run == SymbolBlock.imports: max |diff| = {np.abs(got - want).max():.2e}")


if __name__ == "__main__":
    sys.exit(main())
