"""What ``transpile/`` knows about the runtime is generated from it, in one module by one generator."""
from __future__ import annotations

from pathlib import Path

from hybridize.transpile import derive_facts
from hybridize.transpile.analysis import runtime_facts


def test_the_generated_facts_are_the_runtime_s():
    written = Path(runtime_facts.__file__).read_text(encoding="utf-8")
    assert written == derive_facts.render(), "regenerate: python -m hybridize.transpile.derive_facts"


def test_the_consumers_read_the_generated_facts():
    from hybridize.transpile.analysis import aux_states, broadcast, layers
    assert aux_states.AUX_INPUTS is runtime_facts.AUX_INPUTS
    assert broadcast.SHAPE_KEEPING_OPS is runtime_facts.SHAPE_KEEPING_OPS
    assert layers.SINGLE_TENSOR_LAYERS is runtime_facts.SINGLE_TENSOR_LAYERS
    assert aux_states.AUX_INPUTS["BatchNorm"] == ((3, "moving_mean"), (4, "moving_var"))
