"""Gluon on the hybridize runtime, as ``mxnet.gluon``: blocks, parameters, layers, losses.

``HybridBlock`` runs ``hybrid_forward`` imperatively (``F = nd``) and, after ``hybridize()``,
as a graph traced once with ``F = sym`` and compiled by ``runtime/graph/codegen.py``.
The layer modules (``nn``, ``contrib.nn``, ``loss``) are ported from MXNet 1.9.1 (Apache-2.0)
so that exports from these blocks carry MXNet's op names, attributes and parameter names.
"""
from .parameter import *  # noqa: F401,F403
from .parameter import DeferredInitializationError, ParameterNotInitializedError  # noqa: F401
from .block import *  # noqa: F401,F403
from . import nn  # noqa: F401
from . import loss  # noqa: F401
from . import utils  # noqa: F401
from . import contrib  # noqa: F401
from .trainer import Trainer  # noqa: F401


def __getattr__(attr: str):
    # model_zoo, rnn and data are heavier or optional: load them on first use
    import importlib
    if attr in ("rnn", "model_zoo", "data"):
        mod = importlib.import_module("." + attr, __name__)
        globals()[attr] = mod
        return mod
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
