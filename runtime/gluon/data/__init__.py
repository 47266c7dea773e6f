"""``mxnet.gluon.data``: the samplers (``SequentialSampler``, ``RandomSampler``, ``BatchSampler``, ...).

``Dataset``, ``DataLoader`` and the vision datasets are not part of the runtime yet.
"""
from . import sampler  # noqa: F401
from .sampler import *  # noqa: F401,F403
