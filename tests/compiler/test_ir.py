"""The graph IR owns its analyses: users kept current by every edit, per-entry metadata that
edits invalidate and inference refreshes (only what changed), one definition of a known shape."""
import numpy as np
import pytest

from hybridize.runtime import symbol as sym
from hybridize.runtime.graph.infer import annotate, entry_shapes
from hybridize.runtime.graph.ir import Entry, Node
from hybridize.runtime.ops._util import known, ndim_known
from hybridize.runtime.ops.registry import find_op


def small_graph():
    x = sym.var("data")
    a = sym.relu(x, name="a")
    b = sym.sigmoid(x, name="b")
    return (a + b).graph()


def by_name(g, name):
    return next(n for n in g.nodes if n.name == name)


def users_from_scratch(g):
    table = {}
    for n in g.nodes:
        for slot, e in enumerate(n.inputs):
            table.setdefault(e, []).append((n, slot))
    return table


def assert_users_current(g):
    for e, expected in users_from_scratch(g).items():
        assert sorted(g.users(e), key=lambda u: (u[0].name, u[1])) == \
            sorted(expected, key=lambda u: (u[0].name, u[1]))


def test_users_are_kept_current_by_edits():
    g = small_graph()
    x, a, b = by_name(g, "data"), by_name(g, "a"), by_name(g, "b")
    add = g.outputs[0].node
    assert {u.name for u, _ in g.users(x.entry())} == {"a", "b"}
    assert g.uses(add.entry()) == 1          # the graph output counts as a use
    g.replace_uses(b.entry(), a.entry())     # the add reads a twice
    assert g.users(b.entry()) == [] and g.uses(a.entry()) == 2
    assert_users_current(g)
    g.set_inputs(add, [x.entry(), x.entry()])
    assert g.uses(x.entry()) == 4 and g.uses(a.entry()) == 0
    assert_users_current(g)


def test_substitute_follows_chains_and_drops_dead_nodes():
    g = small_graph()
    x, a, b = by_name(g, "data"), by_name(g, "a"), by_name(g, "b")
    g.substitute({b.entry(): a.entry(), a.entry(): x.entry()})
    assert [n.name for n in g.nodes] == ["data", g.outputs[0].node.name]
    assert g.uses(x.entry()) == 2
    assert_users_current(g)


def test_metadata_is_refreshed_only_where_edits_changed_it():
    g = small_graph()
    meta = annotate(g, {"data": (2, 3)}, {})
    x, a = by_name(g, "data"), by_name(g, "a")
    assert meta[g.outputs[0]].shape == (2, 3) and meta[g.outputs[0]].known
    assert meta[x.entry()].guessed            # nobody gave its dtype: float32 is a guess
    g = small_graph()
    annotate(g, {"data": (3, 3)}, {})
    before = dict(g.meta)
    # a new node in front of the add: it and its dependants are inferred again, nothing else
    a = by_name(g, "a")
    t = Node(find_op("transpose"), "t", {}, [a.entry()])
    g.set_inputs(g.outputs[0].node, [Entry(t, 0), by_name(g, "b").entry()])
    g.reorder()
    meta = annotate(g, {"data": (3, 3)}, {})
    assert meta[Entry(t, 0)].shape == (3, 3)
    assert meta[a.entry()] is before[a.entry()]      # untouched entries keep their metadata objects
    assert {e: (m.shape, m.dtype) for e, m in meta.items()} == \
        {e: (s, np.dtype(np.float32)) for e, s in entry_shapes(g, {"data": (3, 3)}).items()}


@pytest.mark.parametrize("shape, full, legacy, rank", [
    (None, False, False, False), ((), True, False, False), ((2, 3), True, True, True),
    ((0, 3), False, False, True), ((1,), True, True, True)])
def test_one_definition_of_a_known_shape(shape, full, legacy, rank):
    assert known(shape) is full                  # a 0-d shape is a known scalar
    assert known(shape, scalar=False) is legacy  # MXNet 1.x's tensor-only ops: ndim 0 = unknown
    assert ndim_known(shape) is rank
