"""Contrib neural network modules, as ``mxnet.gluon.contrib`` (``nn``, ``rnn``, ``cnn`` and the
``data`` samplers here, ``estimator``)."""
from . import nn  # noqa: F401
from . import data  # noqa: F401
from . import rnn  # noqa: F401
from . import cnn  # noqa: F401
from . import estimator  # noqa: F401
