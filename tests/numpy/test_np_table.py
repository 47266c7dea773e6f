"""The np table (runtime/_numpy_table.py) drives mx.np / mx.npx: every entry binds to a registered
operator or is a composition, and the imperative namespaces hold one function per entry."""
import numpy as onp
import pytest
from hybridize.runtime import _numpy_table as table
from hybridize.runtime import np, npx
from hybridize.runtime.ops.registry import find_op


@pytest.mark.parametrize("entry", table.TABLE, ids=lambda e: f"{e.space}.{e.name}")
def test_every_entry_names_a_registered_op_or_composes(entry):
    assert (entry.op is None) == (entry.compose is not None)
    if entry.op is not None:
        assert find_op(entry.op) is not None, entry.op
        for s in (entry.scalar or ()):
            assert s is None or find_op(s) is not None, s
    table.signature_of(entry)  # the parameter text compiles


def test_namespaces_hold_the_table_functions():
    for entry in table.TABLE:
        mod = np if entry.space == "np" else npx
        for part in entry.name.split("."):
            mod = getattr(mod, part)
        assert callable(mod)


def test_bind_routes_numbers_to_scalar_ops():
    add = next(e for e in table.TABLE if e.name == "subtract")
    is_t = lambda v: isinstance(v, onp.ndarray)
    call = table.bind(add, (onp.ones(2), 2), {}, is_t)
    assert (call.op, call.attrs) == ("_npi_subtract_scalar", {"scalar": 2.0, "is_int": True})
    call = table.bind(add, (2.5, onp.ones(2)), {}, is_t)
    assert (call.op, call.attrs) == ("_npi_rsubtract_scalar", {"scalar": 2.5, "is_int": False})
    assert table.bind(add, (onp.ones(2), onp.ones(2)), {}, is_t).op == "_npi_subtract"


def test_bind_maps_parameters_to_attributes():
    s = next(e for e in table.TABLE if e.name == "sum")
    call = table.bind(s, (onp.ones(2),), {"axis": 0, "keepdims": True, "dtype": onp.float64}, lambda v: True)
    assert call.op == "_np_sum"
    assert call.attrs == {"axis": (0,), "keepdims": True, "dtype": "float64"}


def test_np_mode_hybrid_forward_sees_F_np_and_F_npx():
    from hybridize.runtime.gluon import nn

    class Net(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.np.sum(F.npx.relu(x), axis=1)

    npx.set_np()
    try:
        out = Net()(np.array([[-1.0, 2.0], [3.0, -4.0]]))
        assert isinstance(out, np.ndarray)
        assert out.tolist() == [2.0, 3.0]
    finally:
        npx.reset_np()
