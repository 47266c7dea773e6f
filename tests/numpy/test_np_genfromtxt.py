"""``mx.np.genfromtxt`` reads text as NumPy does and returns an ``mx.np`` array of NumPy's dtype
(MXNet 1.9.1 wraps ``numpy.genfromtxt``; d2l's ``get_data_ch11`` reads its airfoil data with it)."""
from __future__ import annotations

import io

import numpy as onp

from hybridize.runtime import np


def test_genfromtxt_returns_an_np_array_in_the_requested_dtype():
    text = "1\t2\t3\n4\t5\t6\n"
    data = np.genfromtxt(io.StringIO(text), dtype=onp.float32, delimiter="\t")
    assert isinstance(data, np.ndarray) and data.dtype == onp.float32 and data.shape == (2, 3)
    onp.testing.assert_array_equal(data.asnumpy(), [[1, 2, 3], [4, 5, 6]])


def test_genfromtxt_keeps_numpys_float64_by_default():
    data = np.genfromtxt(io.StringIO("1,2\n3,4\n"), delimiter=",")
    assert data.dtype == onp.float64 and data.mean(axis=0).shape == (2,)
