"""Imports every operator family module of this package so that each registers its ops
(:func:`import_all`, which the registry calls on its first lookup).

Discovered by listing the package (a new family module needs no entry anywhere else); modules
whose names start with ``_`` and the infrastructure modules are skipped.
"""
import importlib
import pkgutil
import sys

_INFRA = {"registry", "attrs"}


def import_all() -> None:
    """Imports each family module (importing one twice is a no-op)."""
    package = sys.modules[__package__]
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if not info.name.startswith("_") and info.name not in _INFRA:
            importlib.import_module(f"{__package__}.{info.name}")
