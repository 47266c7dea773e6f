"""Op traits (``ops/registry.py::TRAITS``) and how the passes use them: passes match ops by traits or
by the registry's canonical op, never by a name a node cannot carry."""
import ast
import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compiler_helpers import check  # noqa: E402

from hybridize.runtime import symbol as sym
from hybridize.runtime.graph import passes
from hybridize.runtime.ops.registry import TRAITS, OpDef, all_ops, find_op, get_op

GRAPH = Path(passes.__file__).resolve().parents[1]


def test_every_op_a_pass_refers_to_is_a_registered_canonical_op():
    names = passes.referenced_ops()
    assert {"Convolution", "BatchNorm", "elemwise_add"} <= names
    for name in names:
        op = find_op(name)
        assert op is not None and op.name == name, name


def _string_compares(tree: ast.AST) -> list[str]:
    """String literals compared with something's ``.name`` / a ``name`` variable."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        named = any(isinstance(s, ast.Attribute) and s.attr == "name" or isinstance(s, ast.Name) and "name" in s.id
                    for s in sides)
        if named:
            found += [c.value for s in sides for c in ast.walk(s) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
    return found


def test_passes_do_not_match_op_name_strings():
    """Every op a pass matches goes through ``registry_op`` (checked canonical at import) or a trait."""
    files = sorted((GRAPH / "passes").glob("*.py")) + [GRAPH / "kernels" / "common.py"]
    for f in files:
        tree = ast.parse(f.read_text())
        assert _string_compares(tree) == [], f
        for node in ast.walk(tree):       # literal names given to registry_op are canonical
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "registry_op" \
                    and node.args and isinstance(node.args[0], ast.Constant):
                name = node.args[0].value
                assert find_op(name) is not None and find_op(name).name == name, (f, name)


def test_an_alias_or_unknown_name_is_refused():
    with pytest.raises(ValueError, match="alias of 'elemwise_add'"):
        passes.registry_op("_plus")
    with pytest.raises(ValueError, match="not registered"):
        passes.registry_op("_no_such_operator")


def test_traits_are_checked_and_set_where_ops_are_defined():
    with pytest.raises(ValueError, match="unknown traits"):
        OpDef("x", lambda a, x: x, traits=("pur",))
    with pytest.raises(ValueError, match="identity_if"):
        OpDef("x", lambda a, x: x, identity_if=lambda a, t, s: True)
    ops = {op.name: op for op in all_ops()}
    assert all(op.traits <= TRAITS.keys() for op in ops.values())
    random = {n for n, op in ops.items() if op.has("random")}
    assert {"_random_uniform", "_random_normal_like", "_sample_normal", "_sample_multinomial", "_shuffle",
            "Dropout"} <= random
    np_samplers = {"_npi_uniform", "_npi_normal", "_npi_gumbel", "_npi_logistic", "_npi_gamma", "_npi_exponential",
                   "_npi_rayleigh", "_npi_pareto", "_npi_weibull", "_npi_powerd", "_npi_bernoulli", "_npi_choice",
                   "_npi_multinomial", "_npi_uniform_n", "_npi_normal_n", "_npi_mvn_fallback"}
    assert all(n.startswith(("_random", "_sample", "_image_random")) or n in ("_shuffle", "Dropout")
               or n in np_samplers for n in random)
    # and the converse: every sampler is flagged (the _random_pdf_* densities are deterministic)
    samplers = {n for n in ops if n.startswith(("_random", "_sample", "_image_random")) and not n.startswith("_random_pdf")}
    assert samplers - random == set()
    assert not get_op("_random_uniform").pure(False) and get_op("exp").pure(True)
    assert get_op("BatchNorm").pure(False) and not get_op("BatchNorm").pure(True)
    for n in ("_copy", "BlockGrad", "make_loss"):
        assert ops[n].has("identity") and ops[n].identity_if is None
    for n in ("Reshape", "Flatten", "squeeze", "expand_dims", "reshape_like"):
        assert ops[n].has("shape_only")
    assert {"exp", "relu", "elemwise_add", "_plus_scalar", "Cast"} <= {n for n, op in ops.items()
                                                                       if op.has("elementwise")}
    assert not ops["broadcast_add"].has("elementwise")


def test_identities_removed_by_trait():
    """Aliases spelled in the graph (``identity``, ``stop_gradient``, ``reshape``, ``cast``, ``swapaxes``)
    carry their canonical op, so the pass removes them all."""
    x = sym.var("data")
    y = sym.identity(x)
    y = sym.stop_gradient(y)
    y = sym.reshape(y, shape=(2, 3, 4))
    y = sym.cast(y, dtype="float32")
    y = sym.swapaxes(y, dim1=1, dim2=1)
    y = sym.transpose(y, axes=(0, 1, 2))
    y = sym.Dropout(y, p=0.5)
    y = sym.exp(y)
    kept = sym.transpose(sym.cast(y, dtype="float64"), axes=(0, 2, 1))      # real changes stay
    prog = check(kept, {"data": (2, 3, 4)}, passes=["identity"])
    assert prog.stats["identity"]["removed"] == 7
    assert {n.op.name for n in prog.graph.nodes if n.op is not None} == {"exp", "Cast", "transpose"}


def test_random_ops_are_never_merged_or_folded():
    a = sym.random.uniform(shape=(3,)) if hasattr(sym, "random") else sym._random_uniform(shape=(3,))
    b = sym.random.uniform(shape=(3,)) if hasattr(sym, "random") else sym._random_uniform(shape=(3,))
    x = sym.var("data")
    y = x + a + b
    from hybridize.runtime.graph.codegen import compile_graph
    prog = compile_graph(y.graph(), input_names=["data"], shapes={"data": (3,)})
    assert prog.stats["cse"]["merged"] == 0 and prog.stats["constant_fold"]["folded"] == 0
    out1, out2 = prog(np.zeros(3, np.float32))[0], prog(np.zeros(3, np.float32))[0]
    assert not np.array_equal(out1, out2)                   # drawn again on every call


@pytest.mark.parametrize("draw", [lambda x: sym._internal._sample_exponential(x, shape=(50,)),
                                  lambda x: sym.image.random_brightness(x, min_factor=0.1, max_factor=5.0)],
                         ids=["_sample_exponential", "_image_random_brightness"])
def test_two_draws_from_one_input_are_not_merged(draw):
    """Samplers fed by data (``_sample_*``, ``_image_random_*``): two equal calls are two draws."""
    from hybridize.runtime.graph.codegen import compile_graph
    x = sym.var("data")
    prog = compile_graph(sym.Group([draw(x), draw(x)]).graph(), input_names=["data"], shapes={"data": (2, 3, 3)})
    assert prog.stats["cse"]["merged"] == 0
    first, second = prog(np.full((2, 3, 3), 1.5, np.float32))
    assert not np.array_equal(first, second)


def test_elementwise_ops_keep_the_nhwc_layout():
    """conv -> exp -> (x * 2) -> conv: no transpose back to NCHW between the convolutions."""
    x = sym.var("data")
    y = sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=4, name="a")
    y = sym.exp(sym.tanh(y) * 0.5)
    y = sym.elemwise_mul(y, sym.sigmoid(y))
    y = sym.Convolution(y, kernel=(1, 1), num_filter=3, name="b")
    prog = check(y, {"data": (2, 3, 6, 5)})
    assert prog.stats["layout"]["transposes"] == 2 and prog.stats["layout"]["elementwise"] == 3
