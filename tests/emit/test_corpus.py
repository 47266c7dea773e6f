"""``hybridize transpile --keep-going`` on the whole MXNet corpus (``../shared/corpus/mxnet``): at least
90 % of the modules written, every written module compiles, and the refused modules and the counts
are those documented in docs/transpile-corpus.md (the test reads them from there)."""
from __future__ import annotations

import re

import pytest

from support import CORPUS, REPO, require_shared

DOC = REPO / "docs" / "transpile-corpus.md"


def _documented() -> tuple[set[str], tuple[int, int, int, int]]:
    text = DOC.read_text()
    refused = set(re.findall(r"^\| `(mxnet/[^`]+\.py)` \|", text, re.M))
    counts = re.search(r"^\| (\d+) \| \*\*(\d+)\*\* \| (\d+) \| (\d+) \|", text, re.M)
    assert counts, "table of counts not found in docs/transpile-corpus.md"
    return refused, tuple(int(c) for c in counts.groups())  # type: ignore[return-value]


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory, transpile_cmd):
    require_shared()
    src = CORPUS / "mxnet"
    out = tmp_path_factory.mktemp("corpus")
    result = transpile_cmd(str(src), "-o", str(out), "--keep-going", "--format", "concise")
    modules = sorted(str(p.relative_to(src.parent)) for p in src.rglob("*.py") if "__pycache__" not in p.parts)
    written = sorted(str(p.relative_to(out)) for p in (out / "mxnet").rglob("*.py"))
    return result, out, modules, written


def test_at_least_90_percent_written_and_the_rest_refused(corpus_run):
    result, _, modules, written = corpus_run
    assert result.exit_code == 1, result.stdout + result.stderr  # something refused, nothing broken
    assert len(written) >= 0.9 * len(modules), (len(written), len(modules))
    assert f"Transpiled {len(written)} of {len(modules)} modules" in result.stderr
    assert "unreadable" not in result.stderr


def test_every_written_module_compiles(corpus_run):
    _, out, _, written = corpus_run
    for rel in written:
        compile((out / rel).read_text(encoding="utf-8"), rel, "exec")


def test_refused_set_and_counts_are_the_documented_ones(corpus_run):
    result, _, modules, written = corpus_run
    refused = set(modules) - set(written)
    documented, (total, n_written, n_refused, n_errors) = _documented()
    assert refused == documented
    assert (len(modules), len(written), len(refused), 0) == (total, n_written, n_refused, n_errors)
    # each refused module is reported with its error-level findings, in the checker's format
    for rel in refused:
        assert re.search(rf"{re.escape(rel)}:\d+:\d+: HY\d{{3}}", result.stdout), rel
