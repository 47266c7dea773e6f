"""Contrib neural network modules, as ``mxnet.gluon.contrib`` (``nn`` and ``rnn`` here)."""
from . import nn  # noqa: F401
from . import rnn  # noqa: F401
