"""Property-based: generated and mutated programs never crash the checker or the transpiler.

Bounded and reproducible (``derandomize``: the same examples on every run, so CI cannot flake):
- the checker returns findings for anything (HY000 for what CPython rejects), never raises;
- ``--fix`` output parses and fixing it again changes nothing (idempotent);
- ``hybridize transpile`` either refuses with one-line messages or writes code that compiles, the
  same bytes on every run.
Programs come from a grammar of the constructs the rules are about (tensors flowing through
``F`` ops, in-place updates, indexing, control flow on tensors, concrete values, noqa comments),
from random mutations of every rule example, and from hypothesmith's Python grammar.
"""
from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from hybridize.transpile.check.checker import check_source, fix_source  # noqa: E402
from hybridize.transpile.emit.cli import transpile  # noqa: E402
from hybridize.transpile.rules import ALL_RULES  # noqa: E402

BOUNDED = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                   suppress_health_check=list(HealthCheck))

STATEMENTS = [
    "y = F.relu(y)", "y = y + 1", "y += 1", "y -= x", "y = x[0]", "y = y[:, :2]", "y[0] = 1", "y[:, 0] += 1",
    "if y.sum() > 0:\n    y = -y", "if y.sum() > 0:\n    y = -y\nelse:\n    y = y * 2", "for row in x:\n    y = y + row",
    "z = y.asnumpy()", "print(y)", "n = x.shape[0]", "y = y.reshape(2, -1)", "y = F.where(y > 0, y, -y)",
    "y = nd.relu(y)", "while y.sum() > 1:\n    y = y / 2", "y = y if y.sum() > 0 else -y", "y = self.fc(y)",
    "k = len(y)", "y *= 2  # noqa: HY002", "y = y  # noqa: HY010", "s = float(y.sum())", "outs = [y, x]",
    "y = F.concat(*outs, dim=1)", "y = F.contrib.cond(y.sum() > 0, lambda: y, lambda: -y)", "assert y.shape[0] > 0",
    "if self.flag:\n    y = y + 1", "if F is nd:\n    print(y.asnumpy())", "z = y\nz += 1", "y = y.T",
]
HEADER = "from mxnet import nd\nfrom mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
INIT = ("    def __init__(self, **kwargs):\n        super().__init__(**kwargs)\n"
        "        self.fc = nn.Dense(4)\n        self.flag = True\n\n")


def module(statements: list[str]) -> str:
    body = "\n".join(["y = F.relu(x)", *statements, "return y"])
    return HEADER + INIT + "    def hybrid_forward(self, F, x):\n" + textwrap.indent(body, "        ") + "\n"


def _compiles(text: str) -> bool:
    try:
        compile(text, "m.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _check_fix_transpile(text: str, tmp_path) -> None:
    findings = check_source(text, "m.py")
    assert isinstance(findings, list)
    if not _compiles(text):
        assert any(f.code == "HY000" for f in findings)
    fixed, _, _ = fix_source(text, "m.py", unsafe=True)
    if _compiles(text):
        assert _compiles(fixed), fixed
        assert fix_source(fixed, "m.py", unsafe=True)[0] == fixed  # idempotent
    source = tmp_path / "m.py"
    source.write_text(text)
    outputs = []
    for run in range(2):
        out = tmp_path / f"out{run}"
        res = CliRunner().invoke(transpile, [str(source), "-o", str(out), "--isolated", "--format", "concise"])
        assert res.exit_code in (0, 1, 2), res.output
        assert "Traceback" not in res.output and "internal error" not in res.output, res.output
        written = out / "m.py"
        outputs.append(written.read_text() if written.exists() else None)
        if written.exists():
            assert _compiles(outputs[-1]), outputs[-1]
    assert outputs[0] == outputs[1]  # deterministic


@BOUNDED
@given(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=7))
def test_generated_hybrid_forwards(tmp_path_factory, statements):
    _check_fix_transpile(module(statements), tmp_path_factory.mktemp("gen"))


EXAMPLES = sorted({str(ex)
                   for rule in ALL_RULES.values() for ex in (*rule.valid, *rule.invalid)})
NOISE = list("()[]{}:=+-*/.,#\\'\"\n\t ") + ["    ", "y", "x", "F.", "if ", "for ", "\r\n", "\x0c"]


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(EXAMPLES))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "duplicate_line", "swap_lines"]))
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 8)):]
        elif kind == "insert":
            text = text[:at] + draw(st.sampled_from(NOISE)) + text[at:]
        else:
            lines = text.splitlines(keepends=True)
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "duplicate_line":
                lines.insert(i, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "".join(lines)
    return text


@BOUNDED
@given(mutated())
def test_mutated_rule_examples(tmp_path_factory, text):
    _check_fix_transpile(text, tmp_path_factory.mktemp("mut"))


def test_hypothesmith_programs_inside_hybrid_forward(tmp_path_factory):
    hypothesmith = pytest.importorskip("hypothesmith")

    @settings(max_examples=10, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar(start="file_input"))
    def run(program):
        body = textwrap.indent(program, "        ") if program.strip() else "        pass\n"
        text = HEADER + "    def hybrid_forward(self, F, x):\n" + body + ("\n" if not body.endswith("\n") else "")
        _check_fix_transpile(text, tmp_path_factory.mktemp("smith"))

    run()
