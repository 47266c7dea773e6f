"""``mxnet.gluon.data.vision``: vision datasets from local files and image transforms."""
from . import transforms  # noqa: F401
from .datasets import *
