"""Automatic mixed precision (``mxnet.contrib.amp``): never initialized on this runtime."""
from . import amp  # noqa: F401
from .amp import *  # noqa: F401,F403
