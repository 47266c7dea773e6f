"""MXNet operators on numpy: the registry (``registry``) and one module per op family.

Every family module registers its operators when imported; ``_families.import_all`` imports them all.
"""
from .registry import Attrs, OpDef, all_ops, find_op, get_op, register  # noqa: F401
