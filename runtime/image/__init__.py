"""``mxnet.image``: image decoding, resizing, cropping and augmenters (Pillow for decoding)."""
from . import image  # noqa: F401
from .image import *
from . import detection  # noqa: F401
from .detection import *
