"""The facts about ``hybridize.runtime`` that ``transpile/`` keeps, derived from the runtime in one
place and written to one generated module, :mod:`.analysis.runtime_facts` (the checker reads them there
without importing the runtime, which would cost every checking process a third of a second).
``tests/check/test_runtime_facts.py`` keeps the two equal. Regenerate after changing the registry
or the Gluon layers::

    python -m hybridize.transpile.derive_facts
"""
from __future__ import annotations

import os
from typing import Any

#: Functions MXNet 1.9.1 defines by hand in ``mxnet.ndarray`` (``ndarray.py`` and ``utils.py``
#: ``__all__``): their signatures differ from ``mxnet.symbol``'s (``ctx``), or they do not exist there.
HAND_WRITTEN = frozenset({
    "NDArray", "concatenate", "ones", "add", "arange", "linspace", "eye", "divide", "equal", "full",
    "greater", "greater_equal", "imdecode", "lesser", "lesser_equal", "logical_and", "logical_or",
    "logical_xor", "maximum", "minimum", "moveaxis", "modulo", "multiply", "not_equal", "onehot_encode",
    "power", "subtract", "true_divide", "waitall", "histogram", "split_v2", "to_dlpack_for_read",
    "to_dlpack_for_write", "from_dlpack", "from_numpy", "zeros", "empty", "array", "load",
    "load_frombuffer", "save",
})
_SPACES = ("", "contrib", "linalg", "image")


_SPACES = ("", "contrib", "linalg", "image")


def f_operators() -> frozenset[str]:
    """``X`` / ``contrib.X`` for every operator the runtime registers under a public name."""
    from ..runtime._frontend import placement
    from ..runtime.ops.registry import all_names

    out = set()
    for name, _ in all_names():
        space, public = placement(name)
        if space in _SPACES and not public.startswith("_") and not (space == "" and public in HAND_WRITTEN):
            out.add(f"{space}.{public}" if space else public)
    return frozenset(out)


def aux_inputs() -> dict[str, tuple[tuple[int, str], ...]]:
    """The runtime's operators with auxiliary (mutated) inputs, by the name ``F`` calls them
    (``_contrib_SyncBatchNorm`` is ``F.contrib.SyncBatchNorm``; ``_adamw_update`` is
    ``F.contrib.adamw_update``), with their positions."""
    from ..runtime.ops.registry import all_ops

    found: dict[str, tuple[tuple[int, str], ...]] = {}
    for op in all_ops():
        if not op.aux or callable(op.inputs):
            continue
        slots = tuple((i, name) for i, name in enumerate(op.inputs) if name in op.aux)
        for name in (op.name, *op.aliases):
            short = name[len("_contrib_"):] if name.startswith("_contrib_") else name.lstrip("_")
            found[short] = slots
    return dict(sorted(found.items()))


def shape_keeping_ops() -> frozenset[str]:
    """The runtime's operators (names and aliases) with one data input and one output of its shape."""
    from ..runtime.ops.registry import all_ops, same_shape

    found: set[str] = set()
    for op in all_ops():
        if op.infer_shape is not same_shape or callable(op.inputs) or len(op.inputs) != 1 \
                or op.num_outputs != 1:
            continue
        found.update([op.name, *op.aliases])
    return frozenset(found)


def single_tensor_layers() -> frozenset[str]:
    """The runtime's Gluon layers (``gluon.nn``, ``gluon.contrib.nn``) whose ``hybrid_forward`` takes
    exactly one data input (``(self, F, x, <its Parameters>)``: no ``*args``), that are not
    containers (``add``: their output is whatever their children return) and that do not return
    their input unchanged (``Identity`` passes a list through)."""
    import ast
    import inspect
    import textwrap

    from ..runtime import gluon
    from ..runtime.gluon import HybridBlock

    found = set()
    for module in (gluon.nn, gluon.contrib.nn):
        for name in dir(module):
            cls = getattr(module, name)
            if not (inspect.isclass(cls) and issubclass(cls, HybridBlock)) or hasattr(cls, "add"):
                continue
            method = cls.hybrid_forward
            if method is HybridBlock.hybrid_forward:
                continue
            params = list(inspect.signature(method).parameters.values())
            if len(params) < 3 or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
                continue
            data = params[2].name
            fn = ast.parse(textwrap.dedent(inspect.getsource(method))).body[0]
            assigned = any(isinstance(n, ast.Name) and n.id == data and isinstance(n.ctx, ast.Store)
                           for n in ast.walk(fn))
            passes_through = any(isinstance(n, ast.Return) and isinstance(n.value, ast.Name)
                                 and n.value.id == data for n in ast.walk(fn))
            if passes_through and not assigned:
                continue
            found.add(name)
    return frozenset(found)


#: name -> (derivation, what the fact is: the comment written above it)
FACTS: dict[str, tuple[Any, str]] = {
    "F_OPERATORS": (f_operators, "``X`` / ``contrib.X`` / ``linalg.X`` / ``image.X`` for every operator the runtime "
                                 "registers under a public name, less MXNet's hand-written ndarray functions "
                                 "(HY007 converts ``nd.X`` to ``F.X`` for these)"),
    "AUX_INPUTS": (aux_inputs, "``F`` name -> ((position, input name), ...) of the inputs an operator updates in "
                               "place (MXNet's auxiliary states: HY014)"),
    "SHAPE_KEEPING_OPS": (shape_keeping_ops, "operators (names and aliases) with one data input and one output "
                                             "of its shape (the registry's ``same_shape`` rule: HY013)"),
    "SINGLE_TENSOR_LAYERS": (single_tensor_layers, "Gluon layers (``gluon.nn``, ``gluon.contrib.nn``) that take one "
                                                   "tensor and return one (evidence that an argument is a tensor)"),
}


def _literal(value: Any) -> str:
    if isinstance(value, frozenset):
        return "frozenset({\n" + "".join(f"    {v!r},\n" for v in sorted(value)) + "})"
    return "{\n" + "".join(f"    {k!r}: {v!r},\n" for k, v in sorted(value.items())) + "}"


def render() -> str:
    """The text of ``runtime_facts.py``."""
    out = ['"""Facts about ``hybridize.runtime`` for ``transpile/`` (generated by '
           '``python -m hybridize.transpile.derive_facts``; do not edit)."""\n']
    for name, (derive, doc) in FACTS.items():
        out.append(f"\n#: {doc}\n{name} = {_literal(derive())}\n")
    return "".join(out)


if __name__ == "__main__":  # pragma: no cover - regenerates the module
    from ..atomic import write_bytes

    target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "analysis", "runtime_facts.py")
    write_bytes(target, render().encode("utf-8"))
    print(f"wrote {target}")
