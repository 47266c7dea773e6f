"""HY007: ``nd.X`` / ``mx.nd.X`` / ``nd.contrib.X`` inside ``hybrid_forward`` -> ``F.X``.

``F`` *is* ``mxnet.ndarray`` when the block runs imperatively, so ``F.X`` makes the very same call
there (the fix is safe), and ``mxnet.symbol`` while it is traced, where ``sym.X`` builds the same
operator. That holds for MXNet's registered operators, which MXNet generates into both namespaces
from one definition with one signature. It does not hold for the Python functions MXNet writes by
hand in ``mxnet.ndarray`` (``zeros(shape, ctx, dtype)`` vs ``symbol.zeros(shape, dtype)``,
``array``, ``concatenate``, ``maximum`` on scalars, ...), so those keep the finding, as do
``random`` (seeded differently in a graph), anything under ``_internal``, and calls passing
``out=`` or ``ctx=`` (NDArray-only arguments).

Which names are registered operators is decided by the runtime's registry (one source of truth):
:data:`F_OPERATORS` is generated from it into ``transpile/analysis/runtime_facts.py`` (importing the
runtime would cost the checker a third of a second per process; ``python -m hybridize.transpile.derive_facts``).
"""
from __future__ import annotations

import ast
from typing import Optional

from ..analysis import knowledge as K
from ..analysis.events import Event
from ..diagnostics import Applicability, Fix
from .fixes import _locate, _replace_edit
from .indexing import f_name

def _api_path(qual: str) -> Optional[str]:
    """``mxnet.ndarray.contrib.X`` -> ``contrib.X`` (NDArray API only), else ``None``."""
    parts = K.strip_mxnet(qual)
    if not parts or parts[0] not in ("nd", "ndarray") or len(parts) < 2:
        return None
    return ".".join(parts[1:])


#: MXNet's NumPy-interface modules -> their name under ``F`` in np mode.
_NP_SPACES = {"np": "np", "numpy": "np", "npx": "npx", "numpy_extension": "npx"}


def np_api_path(qual: str) -> Optional[str]:
    """``mxnet.np.ones`` / ``mxnet.ndarray.numpy.ones`` -> ``np.ones``, ``mxnet.npx.relu`` -> ``npx.relu``
    (MXNet's NumPy interface), else ``None``."""
    parts = K.strip_mxnet(qual)
    if parts and parts[0] in ("nd", "ndarray") and len(parts) > 2:
        parts = parts[1:]
    if not parts or len(parts) < 2 or parts[0] not in _NP_SPACES:
        return None
    return ".".join([_NP_SPACES[parts[0]], *parts[1:]])


def imperative_api_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """The HY007 fix for a reference to MXNet's NDArray API (see the module doc), or in np-mode
    code to its NumPy interface: ``np.X``/``mx.np.X`` -> ``F.np.X``, ``npx.X`` -> ``F.npx.X`` where
    MXNet 1.9.1 defines X with one signature in both np-mode namespaces (:data:`NP_OPERATORS`,
    recorded from MXNet: ``mx.nd.np`` is ``F.np`` imperatively, ``mx.sym.np`` while tracing)."""
    from ..analysis.runtime_facts import F_OPERATORS
    from ._np_operators import NP_OPERATORS

    node = event.node
    F = f_name(event.site)
    if event.site.np_mode:
        path = np_api_path(event.name)
        known = NP_OPERATORS
    else:
        path = _api_path(event.name)
        known = F_OPERATORS
    if path is None or path not in known or F is None or not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    call = _call_of(event)
    if call is not None and any(k.arg in ("out", "ctx") for k in call.keywords):
        return None
    message = f"Call `{F}.{path}`: the same operator in both modes"
    if not with_edits:
        return Fix(message, (), Applicability.SAFE)
    import libcst as cst

    found = _locate(event.site, event.site.span(node), (cst.Name, cst.Attribute))
    if found is None:
        return None
    module, ref, where = found
    new = cst.parse_expression(f"{F}.{path}").with_changes(lpar=ref.lpar, rpar=ref.rpar)
    return Fix(message, (_replace_edit(module, ref, new, where),), Applicability.SAFE)


def _call_of(event: Event) -> Optional[ast.Call]:
    fn = event.site.function.node if event.site.function is not None else None
    if fn is None:
        return None
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and node.func is event.node:
            return node
    return None

