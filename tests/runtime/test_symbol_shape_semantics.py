"""A symbol file saved without numpy shape semantics keeps its meaning when read with them on: a 0 in
a variable's ``__shape__`` was "unknown" there (MXNet 1.9.1's loader turns it into -1), not a
zero-size axis. Expected values: ``data/legacy_symbol_np_cases.json``, recorded from MXNet 1.9.1 by
``data/make_legacy_symbol_np_cases.py``."""
from __future__ import annotations

import json
import os

import pytest

import hybridize.runtime as mx

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = json.load(open(os.path.join(HERE, "data", "legacy_symbol_np_cases.json")))


@pytest.mark.parametrize("case", CASES["loads"], ids=lambda c: "np_shape" if c["np_shape"] else "legacy")
def test_legacy_symbol_file_infers_its_unknown_dimensions(case, tmp_path):
    fname = tmp_path / "net.json"
    fname.write_text(CASES["json"])
    with mx.np_shape(case["np_shape"]):
        sym = mx.sym.load(str(fname))
        arg, out, _ = sym.infer_shape(data=(2, 5))
        assert [list(s) for s in arg] == case["arg_shapes"]
        assert [list(s) for s in out] == case["out_shapes"]
        assert ("is_np_shape" in json.loads(sym.tojson())["attrs"]) == case["saved_again_has_flag"]
