"""Operator calls recorded from real MXNet 1.9.1 (``tests/runtime/data/<name>.{json,npz}``, written
under MXNet by ``data/make_<name>.py``): the loading the recorded-case test files share, so each
file states only what it checks."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "runtime" / "data"


class Recorded:
    """One fixture: ``doc`` (its JSON), ``cases`` with their test ``ids``, and ``npz``, the arrays
    stored as ``<case>/in<i>``, ``<case>/out<i>`` (and whatever else the generator records)."""

    def __init__(self, name: str) -> None:
        self.doc = json.loads((DATA / f"{name}.json").read_text())
        self.cases: list[dict] = self.doc["cases"]
        self.ids = [c["case"] for c in self.cases]
        self.npz = np.load(DATA / f"{name}.npz")

    def arrays(self, case: dict, prefix: str = "") -> tuple[list[np.ndarray], list[np.ndarray]]:
        """(inputs, recorded outputs) of ``case``; ``prefix`` selects another group (``"error/"``)."""
        name = prefix + case["case"]
        ins = [self.npz[f"{name}/in{i}"] for i in range(case["num_inputs"])]
        outs = [self.npz[f"{name}/out{i}"] for i in range(case.get("num_outputs", 0))]
        return ins, outs


def kwargs(case: dict) -> dict:
    """The call's keyword arguments as MXNet got them (JSON lists back to tuples)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in case["kwargs"].items()}
