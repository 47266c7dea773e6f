"""A long program is generated as functions of bounded length, computing what one function would."""
from __future__ import annotations

import os
import re
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opcount import chain_json, op_chain_json  # noqa: E402

from hybridize.runtime.graph import mxnet_json  # noqa: E402
from hybridize.runtime.graph.codegen import compile_graph  # noqa: E402
from hybridize.runtime.graph.emit import parts  # noqa: E402
from hybridize.runtime.graph.interpret import evaluate  # noqa: E402


def _functions(code: str) -> list[list[str]]:
    out: list[list[str]] = []
    for line in code.splitlines():
        if line.startswith("def "):
            out.append([])
        elif line.strip():
            out[-1].append(line)
    return out


def _compile(text: str, shape: tuple) -> tuple:
    g = mxnet_json.loads(text)
    prog = compile_graph(g, input_names=["data"], shapes={"data": shape})
    rng = np.random.default_rng(0)
    params = {n: rng.uniform(0.5, 1.0, s).astype(np.float32) for n, s in prog.param_shapes.items()}
    if params:
        prog.bind_params(params)
    x = rng.standard_normal(shape).astype(np.float32)
    return prog, prog(x)[0], evaluate(g, {**params, "data": x})[0]


@pytest.mark.parametrize("text, shape", [(op_chain_json(120), (2, 3)), (chain_json(12), (2, 4))],
                         ids=["operator chain", "block chain"])
def test_long_program_is_split_into_bounded_functions(monkeypatch, text, shape) -> None:
    monkeypatch.setattr(parts, "MAX_LINES", 40)
    prog, y, ref = _compile(text, shape)
    functions = _functions(prog.code)
    assert len(functions) > 3
    assert all(len(body) <= 40 + 1 for body in functions[1:])      # + the return
    assert re.search(r"^    \S.* = _part1\(", prog.code, re.M)
    np.testing.assert_array_equal(y, ref)


def test_short_program_is_one_function() -> None:
    prog, y, ref = _compile(op_chain_json(40), (2, 3))
    assert len(_functions(prog.code)) == 1 and "_part" not in prog.code
    np.testing.assert_array_equal(y, ref)


def test_parts_pass_what_later_code_reads(monkeypatch) -> None:
    monkeypatch.setattr(parts, "MAX_LINES", 1)
    head = ["(c_w,) = _c"]
    steps = [["a = f(x_data, c_w)"], ["b = g(a, out=_b0)", "a = h(b)"], ["r = k(a, b, c_w)"]]
    body, made = parts.split(head, steps, ["return [r]"], ["_c", "x_data"], lambda k: f"_part{k}")
    assert body[1:] == ["a = _part1(x_data, c_w)", "a, b = _part2(a)", "r = _part3(a, b, c_w)", "return [r]"]
    assert made[1][1] == ["def _part2(a):", "    b = g(a, out=_b0)", "    a = h(b)", "    return a, b"]
