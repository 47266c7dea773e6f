"""Both-ways verification of the conversions applied to real-world modules (docs/transpile-conversions.md).

    python tools/verify_conversions.py [RW_ROOT]      # default /tmp/dl/x (see tools/realworld/README.md)

For each case (a block of a downloaded package whose module the conversions touched and that loads
on its own, i.e. imports only ``mxnet``/``numpy``): the original module and the converted one
(``fix_source(unsafe=True)``, as ``hybridize transpile`` applies it) are executed on
``hybridize.runtime`` with ``mxnet`` mapped (``tests/convert/both_ways.load_module``); the block is
built with the case's arguments, its parameters set to the same seeded random values, and called
with the same seeded inputs. The converted block must equal the original imperatively, and, where
no error finding is left in the module (``hybridize`` is True), hybridized too.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent / "shared" / "corpus"
sys.path.insert(0, str(HERE.parent / "tests" / "convert"))

from both_ways import assert_same, flatten, load_module  # noqa: E402

from hybridize.transpile.check.checker import fix_source  # noqa: E402

#: (file under RW_ROOT, or ``corpus:`` + a file under ../shared/corpus, class, constructor kwargs,
#: input shapes, hybridize the converted block?)
CASES = [
    ("corpus:mxnet/gluon/loss.py", "PoissonNLLLoss", {"from_logits": False, "compute_full": True},
     [(3, 4), (3, 4)], True),
    ("gluonnlp/gluonnlp-0.10.0/src/gluonnlp/loss/activation_regularizer.py",
     "TemporalActivationRegularizationLoss", {"beta": 2.0}, [(5, 3, 4), (5, 3, 4)], True),
    ("gluoncv/gluoncv/nn/gn.py", "GroupNorm", {"ngroups": 2, "in_channels": 4}, [(2, 4, 3, 3)], False),
    ("gluoncv/gluoncv/model_zoo/monodepthv2/layers.py", "BackprojectDepth",
     {"batch_size": 2, "height": 4, "width": 5}, [(2, 1, 4, 5), (2, 4, 4)], False),
    ("gluoncv/gluoncv/model_zoo/monodepthv2/layers.py", "Project3D",
     {"batch_size": 2, "height": 4, "width": 5}, [(2, 4, 20), (2, 4, 4), (2, 4, 4)], False),
]


def _run(text: str, label: str, cls: str, kwargs: dict, inputs: list, values, hybridize: bool):
    import hybridize.runtime as mx

    block = load_module(text, label)[cls](**kwargs)
    block.initialize()
    block(*[mx.nd.array(a) for a in inputs])
    params = block._collect_params_with_prefix()
    if values is None:
        rng = np.random.RandomState(1)
        values = {n: rng.standard_normal(p.shape).astype(np.float32) for n, p in sorted(params.items())}
    for name, p in params.items():
        p.set_data(values[name])
    out = flatten(block(*[mx.nd.array(a) for a in inputs]))
    hybrid = None
    if hybridize:
        block.hybridize()
        hybrid = flatten(block(*[mx.nd.array(a) for a in inputs]))
    return out, hybrid, values


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0] if args else "/tmp/dl/x")
    failures = 0
    for rel, cls, kwargs, shapes, hybridize in CASES:
        path = CORPUS / rel[len("corpus:"):] if rel.startswith("corpus:") else root / rel
        text = path.read_text(encoding="utf-8")
        if rel.startswith("corpus:mxnet/gluon/"):  # MXNet's own relative imports, made absolute to load alone
            text = text.replace("from .. import", "from mxnet import").replace("from ..", "from mxnet.") \
                       .replace("from .", "from mxnet.gluon.")
        converted, applied, _ = fix_source(text, str(path), unsafe=True)
        rng = np.random.RandomState(0)
        # positive inputs: losses take logs of targets, depths are positive
        inputs = [(np.abs(rng.standard_normal(s)) + 0.1).astype(np.float32) for s in shapes]
        try:
            original, _, values = _run(text, "original", cls, kwargs, inputs, None, False)
            imperative, hybrid, _ = _run(converted, "converted", cls, kwargs, inputs, values, hybridize)
            assert all(np.isfinite(o).all() for o in original), "the original's outputs are not finite"
            assert_same(original, imperative, "converted, imperative")
            if hybrid is not None:
                assert_same(original, hybrid, "converted, hybridized")
            how = "imperatively and hybridized" if hybridize else "imperatively (errors left in the module)"
            print(f"ok    {rel}:{cls} ({applied} conversions in the module): equal {how}")
        except Exception as exc:  # a report, not a crash: every case is tried
            failures += 1
            print(f"FAIL  {rel}:{cls}: {type(exc).__name__}: {exc}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
