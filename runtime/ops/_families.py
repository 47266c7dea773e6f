"""Imports every operator family module of this package so that each registers its ops.

Discovered by listing the package (a new family module needs no entry anywhere else); modules
whose names start with ``_`` and the infrastructure modules are skipped.
"""
import importlib
import pkgutil
import sys

_INFRA = {"registry", "attrs"}

_pkg = sys.modules[__package__]
for _m in sorted(pkgutil.iter_modules(_pkg.__path__), key=lambda m: m.name):
    if not _m.name.startswith("_") and _m.name not in _INFRA:
        importlib.import_module(f"{__package__}.{_m.name}")
