"""Single-row dense layers (batch-1 MLPs): the bias rides in the matmul as one more weight row and
the input row carries a trailing 1, written by the previous such layer where it feeds only them."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compiler_helpers import check  # noqa: E402

from hybridize.runtime import symbol as sym


def _mlp(x, acts=("relu", "relu", None), hidden=(16, 8, 3), flatten=True):
    y = x
    for i, (act, h) in enumerate(zip(acts, hidden)):
        y = sym.FullyConnected(y, num_hidden=h, flatten=flatten, name=f"fc{i}")
        if act:
            y = sym.Activation(y, act_type=act)
    return y


def test_a_batch_1_mlp_folds_its_biases_into_the_matmuls():
    prog = check(_mlp(sym.var("data")), {"data": (1, 12)})
    assert "_add(" not in prog.code and prog.code.count("] = 1") == 3     # one trailing 1 per row
    assert prog.code.count("_copyto(") == 1                               # only the program input is copied


def test_flattened_and_row_inputs_and_several_calls():
    prog = check(_mlp(sym.var("data"), acts=("sigmoid", "relu", "relu")), {"data": (1, 3, 2, 2)})
    x = np.random.default_rng(1).standard_normal((1, 3, 2, 2)).astype(np.float32)
    first = prog(x)[0]
    np.testing.assert_array_equal(prog(x)[0], first)                      # the 1s are rewritten every call
    check(_mlp(sym.var("data"), flatten=False), {"data": (1, 1, 6)})


def test_a_row_read_by_something_else_is_left_alone():
    """A layer whose output another kind of op also reads (or that is an output) writes a plain
    buffer; its reader copies it into a row with a 1."""
    x = sym.var("data")
    h = sym.relu(sym.FullyConnected(x, num_hidden=8, name="fc0"))
    y = sym.broadcast_add(sym.FullyConnected(h, num_hidden=4, name="fc1"), sym.sum(h, axis=1, keepdims=True))
    prog = check(sym.Group([y, h]), {"data": (1, 5)})
    assert prog.code.count("_copyto(") == 2


def test_more_rows_keep_the_bias_add():
    prog = check(_mlp(sym.var("data")), {"data": (4, 12)})
    assert prog.code.count("_add(") == 3
