"""What MXNet 1.9.1 produced (``tools/record_data_mxnet.py``), for the tests of tests/data/."""
import json
import os

import numpy as np

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

with open(os.path.join(FIXTURES, "mxnet_data.json")) as _f:
    RECORDED = json.load(_f)


def as_plain(x):
    """NDArrays (nested in lists) -> {"dtype", "value"} as the recording stored them."""
    from hybridize.runtime import nd
    if isinstance(x, nd.NDArray):
        return {"dtype": np.dtype(x.dtype).name, "value": x.asnumpy().tolist()}
    if isinstance(x, (list, tuple)):
        return [as_plain(i) for i in x]
    return x


def fixture(name):
    return os.path.join(FIXTURES, name)
