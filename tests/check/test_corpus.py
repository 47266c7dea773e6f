"""MXNet's own Gluon sources (91 hybrid_forward methods): no crash, and exactly these findings.

Every finding is listed with its verdict (see ``docs/checker-corpus.md``); a new finding here is a
false positive until shown otherwise, a missing one a lost true positive.
"""
from __future__ import annotations

import ast

import pytest

from transpile_helpers import CORPUS

from hybridize.transpile.analysis import analyze_text
from hybridize.transpile.check.checker import check_paths
from hybridize.transpile.check.config import Config

GLUON = CORPUS / "mxnet" / "gluon"

# (file, row, column, code): all true violations (errors) or trace-time side effects (warnings).
EXPECTED = [
    ("contrib/rnn/rnn_cell.py", 78, 13, "HY008"),   # VariationalDropoutCell stores a mask Symbol on self
    ("contrib/rnn/rnn_cell.py", 82, 13, "HY008"),   # same, input mask
    ("contrib/rnn/rnn_cell.py", 87, 13, "HY008"),   # same, output mask
    ("loss.py", 858, 13, "HY002"),                  # PoissonNLLLoss(compute_full=True): `*=` on a Symbol
    ("loss.py", 859, 13, "HY002"),                  # PoissonNLLLoss(compute_full=True): `+=` on a Symbol
    ("loss.py", 982, 16, "HY006"),                  # SDMLLoss._compute_distances: x1.shape
    ("loss.py", 982, 28, "HY006"),                  # ... x2.shape
    ("loss.py", 983, 27, "HY006"),                  # ... batch_size, dim = x1.shape
    ("loss.py", 1036, 22, "HY006"),                 # SDMLLoss._loss: x1.shape[0]
    ("loss.py", 1042, 69, "HY006"),                 # SDMLLoss._loss: distances.context
    ("rnn/rnn_cell.py", 972, 9, "HY008"),           # ZoneoutCell keeps the previous output Symbol on self
]


@pytest.fixture(scope="module")
def corpus_result():
    if not GLUON.is_dir():
        pytest.skip("../shared/corpus is not available")
    return check_paths([str(CORPUS)], Config(root=str(CORPUS)), jobs=2)


def test_all_90_defined_hybrid_forward_methods_are_analysed():
    """``def hybrid_forward`` occurs 91 times: 90 methods and one in ``HybridBlock``'s docstring."""
    if not GLUON.is_dir():
        pytest.skip("../shared/corpus is not available")
    texts = [p.read_text(encoding="utf-8") for p in sorted(GLUON.rglob("*.py"))]
    assert sum(t.count("def hybrid_forward") for t in texts) == 91
    defined = sum(1 for t in texts for node in ast.walk(ast.parse(t))
                  if isinstance(node, ast.FunctionDef) and node.name == "hybrid_forward")
    analysed = sum(len(analyze_text(t).functions) for t in texts if "hybrid_forward" in t)
    assert defined == analysed == 90


def test_corpus_is_checked_without_errors(corpus_result):
    assert corpus_result.io_errors == []
    assert [r.io_error for r in corpus_result.files if r.io_error] == []
    assert corpus_result.files_checked == 19
    assert not [f for f in corpus_result.findings if f.code == "HY000"]


def test_corpus_findings_are_exactly_the_known_true_violations(corpus_result):
    found = [(str(__import__("pathlib").Path(f.path).relative_to(GLUON)), f.start.row, f.start.column, f.code)
             for f in corpus_result.findings]
    assert found == EXPECTED


def test_findings_in_helpers_say_how_they_were_reached(corpus_result):
    sdml = [f for f in corpus_result.findings if f.start.row == 982]
    assert sdml[0].context == (
        "reached from `hybrid_forward` via `self._loss(F, x1, x2)` on line 1046",
        "reached from `SDMLLoss._loss` via `self._compute_distances(x1, x2)` on line 1038",
    )
