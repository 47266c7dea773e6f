"""Every rule's own VALID/INVALID/fix examples, run as tests (generated from the registry).

INVALID lines that must be reported end with ``# expect: HYxxx``; the test demands exactly those
(line, code) pairs, so an example also proves that nothing *else* fires. VALID examples must
produce no finding at all.
"""
from __future__ import annotations

import re

import pytest

from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.rules import ALL_RULES, rule_codes

_EXPECT = re.compile(r"#\s*expect:\s*((?:HY\d+[,\s]*)+)")


def _expected(source: str) -> set[tuple[int, str]]:
    out = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = _EXPECT.search(line)
        if match:
            out |= {(number, code) for code in re.split(r"[,\s]+", match.group(1).strip()) if code}
    return out


def _findings(code: str, source: str):
    """What reports ``code``: the checker, or (HY012) the transpiler's API-surface check."""
    if ALL_RULES[code].reported_by == "hybridize transpile":
        from hybridize.transpile.emit.surface import surface_findings

        return surface_findings(source, "example.py")
    return check_source(source, "example.py")


def _cases(kind: str):
    for code, rule in ALL_RULES.items():
        for i, example in enumerate(getattr(rule, kind)):
            yield pytest.param(code, example, id=f"{code}-{kind}-{i}")


def test_the_registry_holds_every_rule_of_the_issue_once():
    assert list(ALL_RULES) == [f"HY{n:03d}" for n in range(15)] + ["HY100"]
    assert rule_codes() == tuple(ALL_RULES)


@pytest.mark.parametrize("code", list(ALL_RULES))
def test_every_rule_is_documented_with_examples(code):
    rule = ALL_RULES[code]
    assert rule.summary and rule.rationale and rule.fix_advice and rule.name
    assert rule.invalid, f"{code} has no INVALID example"
    assert rule.valid, f"{code} has no VALID example"
    assert all(_expected(example) for example in rule.invalid), "every INVALID example marks its lines"
    assert rule.fixable == bool(rule.fix_examples)


@pytest.mark.parametrize("code,example", list(_cases("invalid")))
def test_invalid_example_is_reported_exactly_where_marked(code, example):
    found = {(f.start.row, f.code) for f in _findings(code, example)}
    assert found == _expected(example)
    assert any(c == code for _, c in found)


@pytest.mark.parametrize("code,example", list(_cases("valid")))
def test_valid_example_is_clean(code, example):
    assert _findings(code, example) == []


@pytest.mark.parametrize("code,before,after", [
    pytest.param(code, before, after, id=f"{code}-fix-{i}")
    for code, rule in ALL_RULES.items() for i, (before, after) in enumerate(rule.fix_examples)])
def test_fix_example_round_trips_and_is_idempotent(code, before, after):
    fixed, count, remaining = fix_source(before, "example.py")
    assert fixed == after
    assert count >= 1
    assert not [f for f in remaining if f.code == code]
    again, count_again, _ = fix_source(fixed, "example.py")
    assert (again, count_again) == (fixed, 0)


@pytest.mark.parametrize("code,before,after", [
    pytest.param(code, before, after, id=f"{code}-unsafe-{i}")
    for code, rule in ALL_RULES.items() for i, (before, after) in enumerate(rule.unsafe_fix_examples)])
def test_unsafe_fix_example_needs_unsafe_fixes(code, before, after):
    assert fix_source(before, "example.py")[0] == before
    assert fix_source(before, "example.py", unsafe=True)[0] == after


def test_the_rule_reference_is_generated_from_the_registry():
    from transpile_helpers import REPO

    from hybridize.transpile.rules import _docs

    assert (REPO / "docs" / "checker-rules.md").read_text(encoding="utf-8") == _docs.render(), (
        "regenerate: python -m hybridize.transpile.rules._docs > docs/checker-rules.md")
