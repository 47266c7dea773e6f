"""``mxnet.image``: image decoding, resizing, cropping and augmenters (Pillow for decoding)."""
from . import image  # noqa: F401
from .image import *
