"""An operator's auxiliary states (BatchNorm's moving_mean/moving_var) are updated in place: MXNet
1.9.1 accepts only variables there and refuses a computed Symbol when the node is created
(nnvm symbolic.cc: "Mutation target can only be Variable")."""
from __future__ import annotations

import pytest

import hybridize.runtime as mx
from hybridize.runtime.base import HybridizeError


def test_variables_as_auxiliary_states_are_auxiliary_states():
    x = mx.sym.var("x")
    y = mx.sym.BatchNorm(x, mx.sym.var("g"), mx.sym.var("b"), mx.sym.var("mm"), mx.sym.var("mv"))
    assert y.list_auxiliary_states() == ["mm", "mv"]


def test_a_computed_auxiliary_state_is_refused_when_the_node_is_made():
    x = mx.sym.var("x")
    with pytest.raises(HybridizeError, match="mutation target 'moving_mean' can only be a Variable"):
        mx.sym.BatchNorm(x, mx.sym.var("g"), mx.sym.var("b"), mx.sym.zeros((3,)), mx.sym.var("mv"))
