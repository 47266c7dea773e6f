"""The rule registry: every module ``hy*.py`` in this package defines one ``RULE``.

Rules are discovered, never listed by hand: adding a rule means adding a module. ``ALL_RULES``
maps code -> :class:`~.base.Rule`, sorted by code; ``rules_for(kind)`` gives the rules that
subscribe to an event kind.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from ..analysis.events import EventKind
from .base import Report, Rule

__all__ = ["ALL_RULES", "Rule", "Report", "rules_for", "get_rule", "META_UNUSED_NOQA", "PARSE_ERROR"]

PARSE_ERROR = "HY000"
META_UNUSED_NOQA = "HY100"


def _discover() -> dict[str, Rule]:
    found: dict[str, Rule] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.name.startswith("hy"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        rule = getattr(module, "RULE", None)
        if not isinstance(rule, Rule):
            raise RuntimeError(f"rule module {info.name} defines no RULE")
        if rule.code in found:
            raise RuntimeError(f"duplicate rule code {rule.code}")
        found[rule.code] = rule
    return dict(sorted(found.items()))


ALL_RULES: dict[str, Rule] = _discover()


@lru_cache(maxsize=None)
def rules_for(kind: EventKind) -> tuple[Rule, ...]:
    return tuple(rule for rule in ALL_RULES.values() if kind in rule.events and rule.check is not None)


def get_rule(code: str) -> Rule:
    return ALL_RULES[code]
