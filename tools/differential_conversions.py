"""The large run of the conversions' differential tester (``tests/convert/differential.py``).

    python tools/differential_conversions.py [--examples N] [--statements K] [--seed S]
                                             [--mxnet [PYTHON]] [--show K]

Generates N ``hybrid_forward`` programs (default 1000; the test suite runs 70), runs each through the
oracle on ``hybridize.runtime`` (safe fixes imperatively, transpile's conversions hybridized, and
the module ``hybridize transpile`` emits), and prints per status and per rule what was seen.
Every wrong or broken conversion is minimized (statements dropped while it still fails) and
printed with its converted text. ``--seed`` draws another sample (default: hypothesis'
derandomized one, as the tests). ``--mxnet`` repeats every converted program on MXNet 1.9.1
(``HYBRIDIZE_MXNET_PYTHON`` or the given interpreter): the original run imperatively on MXNet must
equal ours (the runtime's fidelity) and the converted module hybridized on MXNet must equal the
original (the conversion, on the specification). Exit status 1 if anything failed.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "convert"))

from both_ways import assert_same, mxnet_python, on_mxnet  # noqa: E402
from differential import Outcome, Program, minimize, run_program, strategies, with_shape_line  # noqa: E402


def _quiet(fn, *args):
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def generate(examples: int, statements: int, seed):
    """Run the oracle on ``examples`` generated programs: [(program, outcome)]."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as fixed_seed

    runs: list[tuple[Program, Outcome]] = []

    @settings(max_examples=examples, deadline=None, derandomize=seed is None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategies()(max_statements=statements))
    def run(program):
        runs.append((program, _quiet(run_program, with_shape_line(program))))

    if seed is not None:
        run = fixed_seed(seed)(run)
    run()
    return runs


def on_real_mxnet(runs, python: str, chunk: int = 150) -> Counter:
    """Converted programs on MXNet 1.9.1 (see the module doc); prints every difference."""
    cases = {f"p{i}": o.result for i, (_, o) in enumerate(runs) if o.result is not None}
    tally: Counter = Counter()
    keys = sorted(cases)
    for start in range(0, len(keys), chunk):
        part = {k: cases[k] for k in keys[start:start + chunk]}
        for key, got in on_mxnet(part, python).items():
            program = runs[int(key[1:])][0]
            if "error" in got:
                tally["MXNet raises"] += 1
                print(f"MXNET-ERROR {key}:\n{with_shape_line(program)}\n{got['error'][-800:]}")
                continue
            try:
                assert_same(part[key].original, got["original"], "original on MXNet vs ours")
            except AssertionError as exc:
                tally["runtime differs from MXNet (original, imperative)"] += 1
                print(f"RUNTIME {key}:\n{with_shape_line(program)}\n{str(exc)[:600]}")
                continue
            try:
                assert_same(part[key].original, got["hybridized"], "converted, hybridized on MXNet")
            except AssertionError as exc:
                tally["wrong on MXNet"] += 1
                print(f"WRONG-ON-MXNET {key}:\n{with_shape_line(program)}\n--- converted:\n{part[key].after}\n"
                      f"{str(exc)[:600]}")
                continue
            tally["equal on MXNet (original imperative, converted hybridized)"] += 1
    return tally


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000)
    parser.add_argument("--statements", type=int, default=8, help="at most this many generated statements")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--mxnet", nargs="?", const="", default=None, metavar="PYTHON")
    parser.add_argument("--show", type=int, default=10, help="minimize and print at most this many failures")
    args = parser.parse_args(argv)

    started = time.time()
    runs = generate(args.examples, args.statements, args.seed)
    status = Counter(o.status for _, o in runs)
    applied = Counter(c for _, o in runs if o.status == "converted" for c in o.codes)
    print(f"{len(runs)} programs in {time.time() - started:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(status.items())))
    print("conversions verified in converted programs, per rule: "
          + ", ".join(f"{k} {v}" for k, v in sorted(applied.items())))
    failed = [(p, o) for p, o in runs if o.status in ("wrong", "broken", "crash")]
    shown = set()
    for program, outcome in failed:
        if len(shown) >= args.show:
            break
        small = _quiet(minimize, program, outcome.status)
        if tuple(small.statements) in shown:
            continue
        shown.add(tuple(small.statements))
        again = _quiet(run_program, with_shape_line(small))
        print(f"\n=== {again.status} ({', '.join(again.codes)}), minimized:\n{with_shape_line(small)}"
              f"--- converted:\n{again.fixed}--- {again.detail[:1200]}")
    bad = len(failed)
    if args.mxnet is not None:
        python = args.mxnet or mxnet_python()
        if python is None:
            print("no MXNet 1.9.1 interpreter (HYBRIDIZE_MXNET_PYTHON)")
            return 1
        tally = on_real_mxnet(runs, python)
        print("on MXNet 1.9.1: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))
        bad += tally["wrong on MXNet"] + tally["MXNet raises"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
