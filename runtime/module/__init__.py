"""``mxnet.module`` (``mx.mod``): the Module API, as MXNet 1.9.1."""

from .base_module import BaseModule
from .module import Module
from .bucketing_module import BucketingModule
from .sequential_module import SequentialModule

from .python_module import PythonModule, PythonLossModule
