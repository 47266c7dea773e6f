"""Output formats, one module each, discovered like rules: each defines ``NAME`` and ``render``.

``render(findings, options) -> str`` gets the sorted findings and :class:`RenderOptions` (colour,
a source-line lookup for excerpts, the root for relative SARIF URIs). Formats never print; the CLI
writes the string to stdout or atomically to ``-o FILE``.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Callable, Optional

from ...diagnostics import Finding

Render = Callable[[list[Finding], "RenderOptions"], str]


@dataclass
class RenderOptions:
    color: bool = False
    lines_for: Callable[[str], Optional[list[str]]] = field(default=lambda path: None)
    root: str = "."
    show_fixes: bool = True


def _discover() -> dict[str, Render]:
    found: dict[str, Render] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found[module.NAME] = module.render
    return found


FORMATS: dict[str, Render] = _discover()
