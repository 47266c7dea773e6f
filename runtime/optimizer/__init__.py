"""Optimizer API, as ``mxnet.optimizer``: every optimizer of MXNet 1.9.1, ``create``, ``register``,
``Updater``/``get_updater`` (see ``optimizer.py``) and ``contrib.GroupAdaGrad``."""
from . import contrib, optimizer
from .optimizer import *
from .optimizer import Optimizer, Updater, create, get_updater, register  # noqa: F401

__all__ = optimizer.__all__ + ["contrib"]
