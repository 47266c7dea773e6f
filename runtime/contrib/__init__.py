"""``mxnet.contrib`` as far as model code needs it at import time.

``contrib.ndarray`` / ``contrib.symbol`` (``nd`` / ``sym``) are the contrib operator namespaces;
``contrib.amp`` reports that automatic mixed precision was never initialized (gluon-nlp's attention
cells read ``amp._amp_initialized`` on every call); everything else of ``mxnet.contrib``
(onnx, quantization, tensorboard, text, autograd) is absent; ``contrib.io`` has
``DataLoaderIter`` (``from mxnet.contrib.io import DataLoaderIter``).
"""
from .. import ndarray as _ndarray
from .. import symbol as _symbol
from . import amp  # noqa: F401

ndarray = nd = _ndarray.contrib  # type: ignore[attr-defined]
symbol = sym = _symbol.contrib  # type: ignore[attr-defined]
