"""Findings converted vs left, per rule, for ``docs/transpile-conversions.md``.

    python tools/transpile_conversions.py PATH... [--markdown] [--details]

For every ``*.py`` file under PATHs that defines ``hybrid_forward``: the checker's findings on the
file as written, then the conversions ``hybridize transpile`` applies (every rule fix, safe and
unsafe but never one that may change the results, to a fixpoint: ``emit.output.apply_conversions``,
exactly what ``emit.output.convert_module`` applies), then the findings left. Per rule: found,
converted (the multiset difference), left; per module: converted completely (no error left) or
not. ``--details`` lists
every module with a conversion and the methods it touched (for the both-ways verification).
Nothing is written.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import os
import sys
from collections import Counter
from typing import Iterable

from hybridize.transpile.check.checker import check_source
from hybridize.transpile.emit.output import apply_conversions
from hybridize.transpile.diagnostics import Severity
from hybridize.transpile.source import decode_source, mentions_hybrid_forward


def _files(paths: Iterable[str]) -> list[str]:
    out = []
    for path in paths:
        if os.path.isfile(path):
            out.append(path)
            continue
        for root, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            out.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".py"))
    return sorted(out)


def _methods_touched(before: str, after: str) -> list[str]:
    """``Class.method`` of every function whose lines the conversion changed."""
    spans = []
    for node in ast.walk(ast.parse(before)):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    spans.append((item.lineno, item.end_lineno or item.lineno, f"{node.name}.{item.name}"))
    changed = set()
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        for first, last, name in spans:
            if first <= i1 + 1 <= last or (i2 > i1 and first <= i2 <= last):
                changed.add(name)
    return sorted(changed)


def measure(paths: list[str]):
    found, left = Counter(), Counter()
    modules = {"with findings": 0, "converted completely": 0, "with conversions": 0}
    details = []
    for path in _files(paths):
        with open(path, "rb") as handle:
            data = handle.read()
        if not mentions_hybrid_forward(data):
            continue
        text = decode_source(data)
        before = check_source(text, path, with_edits=False)
        if not before:
            continue
        modules["with findings"] += 1
        converted_text, applied = apply_conversions(text, path)
        after = check_source(converted_text, path, with_edits=False) if applied else before
        found.update(f.code for f in before)
        left.update(f.code for f in after)
        if applied:
            modules["with conversions"] += 1
            gone = Counter(f.code for f in before) - Counter(f.code for f in after)
            details.append((path, applied, dict(sorted(gone.items())), _methods_touched(text, converted_text),
                            sorted({f.code for f in after if f.severity is Severity.ERROR})))
        if not any(f.severity is Severity.ERROR for f in after) and any(
                f.severity is Severity.ERROR for f in before):
            modules["converted completely"] += 1
    return found, left, modules, details


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--details", action="store_true")
    args = parser.parse_args(argv)
    found, left, modules, details = measure(args.paths)
    print("| rule | found | converted | left |")
    print("| --- | ---: | ---: | ---: |")
    for code in sorted(set(found) | set(left)):
        converted = max(found[code] - left[code], 0)
        print(f"| {code} | {found[code]} | {converted} | {left[code]} |")
    total_found, total_left = sum(found.values()), sum(left.values())
    print(f"| **all** | **{total_found}** | **{max(total_found - total_left, 0)}** | **{total_left}** |")
    print()
    print(", ".join(f"{k}: {v}" for k, v in modules.items()))
    if args.details:
        print()
        for path, applied, gone, methods, still in details:
            print(f"- `{path}`: {applied} fixes, removed {gone}, methods {', '.join(methods) or '-'}; "
                  f"errors left: {', '.join(still) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
