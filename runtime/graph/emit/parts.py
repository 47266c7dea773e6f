"""Bounded generated functions: the steps of a long program split into functions of at most
:data:`MAX_LINES` lines, which ``forward`` calls in order.

Why: CPython compiles a function in time that grows faster than its length (a 250k-line
``forward``, a chain of 10^5 operators, took 2.8 s of ``compile()``; 0.19 s for 25k lines), and
nobody reads a function of 10^5 lines. Programs of ordinary models (resnet50_v1: about 200 lines)
stay one function, unchanged.

Each part is a plain function of the same globals: it takes as arguments the locals it reads
that earlier code defined (inputs, constants, buffers, earlier steps' outputs) and returns the
ones it defines or rebinds that later code reads. Names are found in the generated lines
themselves (a statement's assignment targets, then every other identifier that is neither an
attribute nor a keyword argument's name): the emitters write plain statements without string
literals (attribute values never reach the source as text), so identifiers are exactly names.
"""
from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["MAX_LINES", "split"]

MAX_LINES = 1000        # lines of steps in one generated function

# `a = ...`, `a, b, *_ = ...`, `(a, b,) = ...`: the names a statement binds
_TARGETS = re.compile(r"\s*\(?\s*((?:\*?[A-Za-z_]\w*\s*,\s*)*\*?[A-Za-z_]\w*)\s*,?\s*\)?\s*=(?!=)")
# identifiers that are neither attributes (`.shape`) nor keyword arguments' names (`out=`)
_NAMES = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?!\w|\s*=(?!=))")


def _scan(line: str) -> tuple[list[str], list[str]]:
    """(names bound, names read) by one generated line."""
    s = line.lstrip()
    if s.startswith("#"):
        return [], []
    m = _TARGETS.match(line)
    if m is None:
        return [], _NAMES.findall(line)
    bound = [t.strip().lstrip("*") for t in m.group(1).split(",")]
    return bound, _NAMES.findall(line, m.end())


def split(head: list[str], steps: list[list[str]], tail: list[str], args: list[str],
          make_name: Callable[[int], str]) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """``forward``'s body and the parts it calls, ``[(name, source lines)]``.

    ``head`` (constants, buffers, input checks), ``steps`` (the lines of each step, in order) and
    ``tail`` (the return) are the lines of one straight-line function of ``args``; ``make_name(k)``
    names part ``k``. Steps are grouped in order into parts of at most :data:`MAX_LINES` lines (a
    longer step is a part of its own); with one part, the body is returned unsplit."""
    groups: list[list[str]] = [[]]
    for lines in steps:
        if groups[-1] and len(groups[-1]) + len(lines) > MAX_LINES:
            groups.append([])
        groups[-1].extend(lines)
    if len(groups) <= 1:
        return head + (groups[0] if groups else []) + tail, []
    # sections: 0 = head, 1..K = the parts, K + 1 = tail; the locals are the names bound anywhere
    sections = [head] + groups + [tail]
    scanned = [[_scan(line) for line in sec] for sec in sections]
    local = set(args)
    for sec in scanned:
        for bound, _ in sec:
            local.update(bound)
    local.discard("_")          # `a, *_ = kernel(...)`: never read
    first: dict[str, int] = {a: 0 for a in args}
    last: dict[str, int] = {}
    seen_in: list[list[str]] = []        # locals a section reads or binds, in order
    bound_in: list[set[str]] = []         # locals a section binds
    for k, sec in enumerate(scanned):
        order: dict[str, None] = {}
        binds: set[str] = set()
        for bound, read in sec:
            for nm in read:
                if nm in local:
                    order[nm] = None
            for nm in bound:
                if nm in local:
                    order[nm] = None
                    binds.add(nm)
        for nm in order:
            first.setdefault(nm, k)
            last[nm] = k
        seen_in.append(list(order))
        bound_in.append(binds)
    body = list(head)
    parts: list[tuple[str, list[str]]] = []
    for k in range(1, len(sections) - 1):
        params = [nm for nm in seen_in[k] if first[nm] < k]
        rets = [nm for nm in seen_in[k] if nm in bound_in[k] and last[nm] > k]
        name = make_name(k)
        src = [f"def {name}({', '.join(params)}):"] + ["    " + line for line in sections[k]]
        call = f"{name}({', '.join(params)})"
        if rets:
            src.append("    return " + ", ".join(rets))
            call = f"{', '.join(rets)} = {call}"
        parts.append((name, src))
        body.append(call)
    return body + list(tail), parts
