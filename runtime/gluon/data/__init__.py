"""``mxnet.gluon.data``: datasets, samplers, the DataLoader and ``vision`` (datasets read from local
files, transforms)."""
from . import sampler  # noqa: F401
from .dataset import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403
from .dataloader import *  # noqa: F401,F403
from . import vision  # noqa: F401
