"""``mxnet.gluon.contrib.data``: contrib samplers (``IntervalSampler``); the text datasets are not ported."""
from . import sampler  # noqa: F401
from .sampler import *  # noqa: F401,F403
