"""Conversions: libcst codemods that rewrite code needing concrete data into equivalent graph code.

Each conversion belongs to the rule whose finding it repairs (``rules/hy*.py`` name it); the
checker applies them as fixes (``--fix``) and the transpiler applies them before emitting.
"""
