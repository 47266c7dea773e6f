"""Both-ways verification of the conversions applied to real-world modules (docs/transpile-conversions.md).

    python tools/verify_conversions.py [RW_ROOT]      # default /tmp/dl/x (see tools/realworld/README.md)

For each case (a block of a downloaded package whose module the conversions touched and that loads
on its own, i.e. imports only ``mxnet``/``numpy``): the original module and the converted one
(``emit.output.apply_conversions``, what ``hybridize transpile`` applies) are executed on
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

from hybridize.transpile.emit.output import apply_conversions  # noqa: E402

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


#: Blocks in modules with package-relative imports: (package root under RW_ROOT, packages to stub
#: (their heavy __init__s are not run, as tools/realworld does), module, constructor expression on
#: ``m``, inputs (a shape, or ("int", high, shape) for token ids), hybridize the converted block?,
#: code run before the import)
PACKAGE_CASES = [
    ("gluonnlp/gluonnlp-0.10.0/src", ["gluonnlp", "gluonnlp.model", "gluonnlp.data", "gluonnlp.model.train"],
     "gluonnlp.model.language_model",
     "m.StandardRNN(mode='gru', vocab_size=30, embed_size=16, hidden_size=16, num_layers=2, dropout=0.5, "
     "tie_weights=True)", [("int", 30, (5, 2))], True,
     # the stubbed ``gluonnlp.model.train`` package gets what its __init__ would export
     "import gluonnlp.model.train.language_model as t, gluonnlp.model.train as p\n"
     "p.AWDRNN, p.StandardRNN = t.AWDRNN, t.StandardRNN"),
    ("gluoncv2", ["gluoncv2", "gluoncv2.models"], "gluoncv2.models.irevnet", "m.IRevDownscale(scale=2)",
     [(1, 4, 4, 4)], False, ""),
]

def _nlp_prelude() -> dict:
    sys.path.insert(0, str(HERE / "realworld"))
    try:
        from specs import NLPPRE  # the harness's stand-ins (tools/realworld/specs.py)
    finally:
        sys.path.pop(0)
    return NLPPRE


NLP_PRELUDE: dict = {}

_PACKAGE_RUN = r"""
import sys, json, numpy as np
sys.path.insert(0, {tools!r})
import rwload, types
rwload.alias_mxnet()
for name, src in {prelude!r}.items():  # tools/realworld's stand-ins for optional dependencies
    mod = types.ModuleType(name)
    mod.__path__ = []
    exec(src, mod.__dict__)
    sys.modules[name] = mod
rwload.setup({root!r}, {stubs!r})
{before}
import importlib
import hybridize.runtime as mx
m = importlib.import_module({module!r})
block = {ctor}
block.initialize()
inputs = [mx.nd.array(a) for a in np.load({inputs!r}, allow_pickle=False).values()]
def call():
    out = block(*[x.copy() for x in inputs])
    out = list(out) if isinstance(out, (list, tuple)) else [out]
    flat = []
    while out:
        o = out.pop(0)
        if isinstance(o, (list, tuple)):
            out[:0] = list(o)
        else:
            flat.append(o.asnumpy())
    return flat
call()
rng = np.random.RandomState(1)
for name, p in sorted(block._collect_params_with_prefix().items()):
    p.set_data(rng.standard_normal(p.shape).astype(np.float32) * 0.1)
result = {{"imperative": call()}}
if {hybridize!r}:
    block.hybridize()
    result["hybridized"] = call()
np.savez({out!r}, **{{f"{{k}}_{{i}}": a for k, v in result.items() for i, a in enumerate(v)}})
"""


def _package_case(root: Path, case) -> str:
    import shutil
    import subprocess
    import tempfile

    pkg_root, stubs, module, ctor, specs, hybridize, before = case
    src_root = root / pkg_root
    if module.startswith("gluonnlp") and not NLP_PRELUDE:
        NLP_PRELUDE.update(_nlp_prelude())
    path = src_root / (module.replace(".", "/") + ".py")
    text = path.read_text(encoding="utf-8")
    converted, applied = apply_conversions(text, str(path))
    rng = np.random.RandomState(0)
    arrays = [rng.randint(0, s[1], size=s[2]).astype(np.float32) if s[0] == "int"
              else (np.abs(rng.standard_normal(s)) + 0.1).astype(np.float32) for s in specs]
    with tempfile.TemporaryDirectory() as tmp:
        overlay = Path(tmp) / "converted"
        top = module.split(".")[0]
        shutil.copytree(src_root / top, overlay / top)
        (overlay / (module.replace(".", "/") + ".py")).write_text(converted, encoding="utf-8")
        np.savez(Path(tmp) / "inputs.npz", *arrays)
        outs = {}
        for which, base, hyb in (("original", src_root, False), ("converted", overlay, hybridize)):
            out = Path(tmp) / f"{which}.npz"
            prelude = {k: v.replace(str(src_root), str(base)) for k, v in NLP_PRELUDE.items()} \
                if module.startswith("gluonnlp") else {}
            script = _PACKAGE_RUN.format(tools=str(HERE / "realworld"), root=str(base), stubs=stubs, module=module,
                                         prelude=prelude, before=before,
                                         ctor=ctor, inputs=str(Path(tmp) / "inputs.npz"), hybridize=hyb, out=str(out))
            done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True, text=True,
                                  env=dict(os.environ))
            if done.returncode != 0:
                raise RuntimeError(f"{which}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
            outs[which] = dict(np.load(out))
    original = [outs["original"][k] for k in sorted(outs["original"]) if k.startswith("imperative")]
    assert all(np.isfinite(o).all() for o in original), "the original's outputs are not finite"
    for kind in ("imperative", "hybridized"):
        got = [outs["converted"][k] for k in sorted(outs["converted"]) if k.startswith(kind)]
        if got:
            assert_same(original, got, f"converted, {kind}")
    how = "imperatively and hybridized" if hybridize else "imperatively (errors left in the module)"
    return f"{module}:{ctor.split('(')[0][2:]} ({applied} conversions in the module): equal {how}"


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
        converted, applied = apply_conversions(text, str(path))
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
    for case in PACKAGE_CASES:
        try:
            print(f"ok    {_package_case(root, case)}")
        except Exception as exc:
            failures += 1
            print(f"FAIL  {case[2]}: {type(exc).__name__}: {exc}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
