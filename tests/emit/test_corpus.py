"""``hybridize transpile --keep-going`` on the whole MXNet corpus (``../shared/corpus/mxnet``): every
module written and compiling, and the refused modules (checker errors, or HY012: names the runtime
does not provide), their codes and the counts are those documented in docs/transpile-corpus.md
(the test reads them from there)."""
from __future__ import annotations

import re

import pytest

from support import CORPUS, REPO, require_shared

DOC = REPO / "docs" / "transpile-corpus.md"


def _documented() -> tuple[dict[str, set[str]], tuple[int, ...]]:
    text = DOC.read_text()
    refused = {m.group(1): set(re.findall(r"HY\d{3}", m.group(2)))
               for m in re.finditer(r"^\| `(mxnet/[^`]+\.py)` \| ([^|]+) \|", text, re.M)}
    counts = re.search(r"^\| (\d+) \| \*\*(\d+)\*\* \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|", text, re.M)
    assert counts, "table of counts not found in docs/transpile-corpus.md"
    return refused, tuple(int(c) for c in counts.groups())


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory, transpile_cmd):
    require_shared()
    src = CORPUS / "mxnet"
    out = tmp_path_factory.mktemp("corpus")
    result = transpile_cmd(str(src), "-o", str(out), "--keep-going", "--format", "concise")
    modules = sorted(str(p.relative_to(src.parent)) for p in src.rglob("*.py") if "__pycache__" not in p.parts)
    written = sorted(str(p.relative_to(out)) for p in (out / "mxnet").rglob("*.py"))
    return result, out, modules, written


def test_every_module_is_written_and_compiles(corpus_run):
    result, out, modules, written = corpus_run
    assert result.exit_code == 1, result.stdout + result.stderr  # something refused, nothing broken
    assert written == modules
    for rel in written:
        compile((out / rel).read_text(encoding="utf-8"), rel, "exec")
    assert "unreadable" not in result.stderr


def test_refused_set_codes_and_counts_are_the_documented_ones(corpus_run):
    result, out, modules, _ = corpus_run
    reported: dict[str, set[str]] = {}
    for m in re.finditer(r"^\S*?(mxnet/\S+\.py):\d+:\d+: (HY\d{3})", result.stdout, re.M):
        reported.setdefault(m.group(1), set()).add(m.group(2))
    documented, (total, converted, refused, by_checker, by_surface, errors) = _documented()
    assert reported == documented
    checker_refused = [r for r, codes in reported.items() if codes - {"HY012"}]
    assert (len(modules), len(modules) - len(reported), len(reported), len(checker_refused),
            len(reported) - len(checker_refused), 0) == (total, converted, refused, by_checker, by_surface, errors)
    assert f"Transpiled {converted} of {total} modules" in result.stderr
    for rel in reported:  # the summary names every refused module, each written with its findings in the header
        assert rel in result.stderr
        assert "NOT CONVERTED" in (out / rel).read_text() or "UNSUPPORTED APIs" in (out / rel).read_text()
    for rel in checker_refused:
        assert "@imperative_only(" in (out / rel).read_text()
