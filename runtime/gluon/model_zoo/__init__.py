"""``mxnet.gluon.model_zoo``: ``model_store`` (pretrained file lookup, no downloads) and ``vision``.

``vision`` is MXNet 1.9.1's vision model zoo (Apache-2.0) ported unchanged: its relative imports
resolve to this runtime's modules (``from ...block import HybridBlock``). ``pretrained=True`` reads
``<root>/<name>-<hash>.params`` through :mod:`.model_store` (checksum verified, never downloaded).
"""
from . import model_store  # noqa: F401
from . import vision  # noqa: F401
