"""Contrib neural network modules, as ``mxnet.gluon.contrib`` (``nn`` only here)."""
from . import nn  # noqa: F401
