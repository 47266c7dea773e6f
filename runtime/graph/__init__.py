"""Graph IR (``ir``), MXNet file formats (``mxnet_json``, ``params``), inference, passes, executors."""
from .ir import Entry, Graph, Node  # noqa: F401
