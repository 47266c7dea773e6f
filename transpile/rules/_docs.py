"""Render the rule reference (``docs/checker-rules.md``) from the registry.

    python -m hybridize.transpile.rules._docs > docs/checker-rules.md

A test keeps the committed file equal to this output, so the reference cannot drift from the
rules (each defined once, in its module).
"""
from __future__ import annotations

import re

from . import ALL_RULES

_EXPECT = re.compile(r"\s*#\s*expect:\s*HY\d+(?:[,\s]+HY\d+)*")


def render() -> str:
    out = [
        "# hybridize-check rules",
        "",
        "Generated from `transpile/rules/` by `python -m hybridize.transpile.rules._docs`; do not edit.",
        "",
        "| code | name | severity | fixable | finding |",
        "| --- | --- | --- | --- | --- |",
    ]
    for code, rule in ALL_RULES.items():
        out.append(f"| [{code}](#{code.lower()}) | {rule.name} | {rule.severity.value} | "
                   f"{'yes' if rule.fixable else ''} | {rule.summary} |")
    for code, rule in ALL_RULES.items():
        out += ["", f"## {code}", "", f"**{rule.name}** ({rule.severity.value}"
                f"{', fixable' if rule.fixable else ''}): {rule.summary}", "", rule.rationale, "",
                f"Fix: {rule.fix_advice}"]
        if rule.fixable:
            out += ["", "In np-mode code (`npx.set_np()`): " + (rule.np_advice or (
                "the fix applies (it emits `F.np`/`F.npx` or no operator)." if rule.np_fixable else
                "reported without a fix (the conversion emits the legacy `F` API)."))]
        if rule.reported_by != "hybridize-check":
            out += ["", f"Reported by `{rule.reported_by}` only."]
        for title, examples in (("Invalid", rule.invalid), ("Valid", rule.valid)):
            for example in examples:
                marked = "\n".join(_EXPECT.sub(f"  # {code}" if title == "Invalid" else "", line)
                                   for line in example.rstrip("\n").splitlines())
                out += ["", f"{title}:", "", "```python", marked, "```"]
        for before, after in rule.fix_examples:
            pairs = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
            out += ["", "Fix example:", "", "```diff"]
            out += [line for a, b in pairs for line in (f"-{a}", f"+{b}")]
            out += ["```"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(render(), end="")
