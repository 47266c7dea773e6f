"""``mxnet.io``: data iterators (NDArrayIter, CSVIter, ImageRecordIter, ImageDetRecordIter, MNISTIter, LibSVMIter, ResizeIter, PrefetchingIter) and their records."""
from . import io, utils  # noqa: F401
from .io import (  # noqa: F401
    CSVIter,
    DataBatch,
    DataDesc,
    DataIter,
    ImageRecordIter,
    NDArrayIter,
    PrefetchingIter,
    ResizeIter,
)
from .imagedet import ImageDetRecordIter  # noqa: F401
from .libsvm import LibSVMIter  # noqa: F401
from .mnist import MNISTIter  # noqa: F401
from .utils import _getdata_by_idx, _has_instance, _init_data  # noqa: F401
