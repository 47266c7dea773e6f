"""Operators that update some inputs in place (MXNet's auxiliary states / ``FMutateInputs``):
BatchNorm's ``moving_mean``/``moving_var``, the optimizer updates' moments.

In a graph such an input must be a variable: MXNet 1.9.1 refuses a computed Symbol there when the
node is created (nnvm ``symbolic.cc``: "Mutation target can only be Variable"), so
``F.BatchNorm(x, g, b, F.zeros(n), F.ones(n))`` runs imperatively and fails once hybridized (HY014).
:data:`AUX_INPUTS` is generated from ``hybridize.runtime``'s registry (``transpile/derive_facts.py``)::

    python -m hybridize.transpile.derive_facts
"""
from __future__ import annotations

from .runtime_facts import AUX_INPUTS  # noqa: F401  (re-exported: generated, see transpile/derive_facts.py)

