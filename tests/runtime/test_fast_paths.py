"""Shortcuts the runtime takes for speed give what the general path gives.

Each test compares a fast path with the slower, obviously right route it replaces (MXNet 1.9.1's
own definition of the behaviour), never timings.
"""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from hybridize.runtime import nd
from hybridize.runtime import numpy as mnp
from hybridize.runtime.ndarray import NDArray

ARRAYS = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array(3.5), np.zeros((0, 3), np.int32),
          np.ones((2, 2), bool), np.arange(4, dtype=np.float16), np.arange(12.0).reshape(3, 4).T,
          np.arange(3, dtype=np.uint8), np.arange(3, dtype=np.int16)]


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_deepcopy_of_an_ndarray_is_its_pickle_round_trip(a):
    # MXNet's NDArray deep-copies through its pickled state: a new C-ordered array of the same
    # values and dtype on the default context, off the tape
    x = NDArray(a)
    via_state, copied = pickle.loads(pickle.dumps(x)), copy.deepcopy(x)
    assert type(copied) is NDArray and copied is not x
    assert copied.dtype == via_state.dtype and copied.shape == via_state.shape
    np.testing.assert_array_equal(copied.asnumpy(), via_state.asnumpy())
    assert copied.asnumpy().flags.c_contiguous and not np.shares_memory(copied.asnumpy(), a)
    assert copied.context == via_state.context


def test_deepcopy_leaves_the_original_and_the_tape():
    from hybridize.runtime import autograd
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * 2
    args = copy.deepcopy({"y": y, "x": x})
    args["y"][:] = 0
    assert y.asnumpy().tolist() == [2.0, 4.0]
    assert args["x"].grad is None and x.grad is not None


def test_deepcopy_of_a_subclass_keeps_its_own_protocol():
    a = mnp.array([1.0, 2.0])
    b = copy.deepcopy(a)
    assert type(b) is type(a) and b.asnumpy().tolist() == [1.0, 2.0]
