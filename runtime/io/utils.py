"""Helpers of ``mxnet.io`` (ported from MXNet 1.9.1, Apache-2.0)."""
from collections import OrderedDict

import numpy as np

try:
    import h5py
except ImportError:
    h5py = None

from ..ndarray import NDArray, array


def _init_data(data, allow_empty, default_name):
    """Convert data into canonical form."""
    assert (data is not None) or allow_empty
    if data is None:
        data = []

    if isinstance(data, (np.ndarray, NDArray, h5py.Dataset)
                  if h5py else (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, list):
        if not allow_empty:
            assert(len(data) > 0)
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])  # pylint: disable=redefined-variable-type
        else:
            data = OrderedDict(  # pylint: disable=redefined-variable-type
                [('_%d_%s' % (i, default_name), d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise TypeError("Input must be NDArray, numpy.ndarray, h5py.Dataset " +
                        "a list of them or dict with them as values")
    for k, v in data.items():
        if not isinstance(v, (NDArray, h5py.Dataset) if h5py else NDArray):
            try:
                data[k] = array(v)
            except Exception:
                raise TypeError(("Invalid type '%s' for %s, " % (type(v), k)) +
                                "should be NDArray, numpy.ndarray or h5py.Dataset")

    return sorted(data.items())


def _has_instance(data, dtype):
    """Return True if ``data`` has instance of ``dtype``.
    This function is called after _init_data.
    ``data`` is a list of (str, NDArray)"""
    for item in data:
        _, arr = item
        if isinstance(arr, dtype):
            return True
    return False


def _getdata_by_idx(data, idx):
    """Shuffle the data."""
    shuffle_data = []

    for k, v in data:
        if (isinstance(v, h5py.Dataset) if h5py else False):
            shuffle_data.append((k, v))
        else:
            shuffle_data.append((k, array(v.asnumpy()[idx], v.context)))

    return shuffle_data

def _slice_along_batch_axis(data, s, batch_axis):
    """Apply slice along the batch axis"""
    if isinstance(data, NDArray):  # directly on the numpy value: a batch per call must be cheap
        index = (slice(None),) * batch_axis + (slice(s.start, s.stop),)
        return NDArray(np.array(data._data[index]))
    ret = data.slice_axis(axis=batch_axis, begin=s.start, end=s.stop)
    return ret
