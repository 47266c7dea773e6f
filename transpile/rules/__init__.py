"""The rule registry: every module ``hy*.py`` in this package defines one ``RULE``.

Rules are discovered, never listed by hand: adding a rule means adding a module named
``hyNNN_<name>.py``. ``ALL_RULES`` (code -> :class:`~.base.Rule`, sorted) is loaded lazily on first
access, because rule modules import libcst and most runs of the CLI's fast paths (no candidate
files, config validation) only need the codes, which :func:`rule_codes` reads from file names.
"""
from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.events import EventKind
    from .base import Rule

__all__ = ["ALL_RULES", "rules_for", "get_rule", "rule_codes", "META_UNUSED_NOQA", "PARSE_ERROR"]

PARSE_ERROR = "HY000"
META_UNUSED_NOQA = "HY100"


def _modules() -> list[str]:
    return sorted(i.name for i in pkgutil.iter_modules(__path__) if i.name.startswith("hy"))


@lru_cache(maxsize=None)
def rule_codes() -> tuple[str, ...]:
    """All rule codes, from module names (``hy002_inplace_augassign`` -> ``HY002``)."""
    return tuple(sorted(name.split("_", 1)[0].upper() for name in _modules()))


@lru_cache(maxsize=None)
def _discover() -> dict[str, "Rule"]:
    from .base import Rule

    found: dict[str, Rule] = {}
    for name in _modules():
        module = importlib.import_module(f"{__name__}.{name}")
        rule = getattr(module, "RULE", None)
        if not isinstance(rule, Rule):
            raise RuntimeError(f"rule module {name} defines no RULE")
        if rule.code != name.split("_", 1)[0].upper():
            raise RuntimeError(f"rule module {name} defines {rule.code}: module and code must agree")
        if rule.code in found:
            raise RuntimeError(f"duplicate rule code {rule.code}")
        found[rule.code] = rule
    return dict(sorted(found.items()))


def __getattr__(name: str) -> Any:
    if name == "ALL_RULES":
        return _discover()
    raise AttributeError(name)


@lru_cache(maxsize=None)
def rules_for(kind: "EventKind") -> tuple["Rule", ...]:
    return tuple(rule for rule in _discover().values() if kind in rule.events and rule.check is not None)


def get_rule(code: str) -> "Rule":
    return _discover()[code]
