"""``mxnet.gluon.model_zoo``: ``model_store`` (pretrained file lookup, no downloads).

The model definitions (``model_zoo.vision``) are not shipped: ``hybridize transpile`` produces
them from MXNet's source (see ``tests/gluon/test_corpus_model_zoo.py``).
"""
from . import model_store  # noqa: F401
