"""Contrib neural network modules, as ``mxnet.gluon.contrib`` (``nn``, ``rnn`` and ``cnn`` here)."""
from . import nn  # noqa: F401
from . import rnn  # noqa: F401
from . import cnn  # noqa: F401
