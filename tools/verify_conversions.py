"""Both-ways verification of every conversion applied to real code (docs/transpile-conversions.md).

    python tools/verify_conversions.py [RW_ROOT] [--corpus DIR] [--markdown]
    # RW_ROOT default /tmp/dl/x (tools/realworld/README.md), DIR default ../shared/corpus

1. Discover: every module of the corpus and of gluon-cv, imgclsmob, gluon-nlp and gluon-ts that the
   conversions change (``emit.output.apply_conversions``, what ``hybridize transpile`` applies), the
   classes and methods they touch, and whether the module is *emitted converted*
   (``emit.output.convert_module`` writes the converted code: no error is left) or refused (transpile
   writes the original; the conversions never reach the output).
2. Run every touched class for which a case exists (:data:`CASES`: constructor arguments and
   input shapes chosen to be reasonable for the block), in a fresh process per side: the original
   module imperatively, and the module as transpile emits it (emitted modules: the ``@static_graph``
   code itself, so imperative and hybridized calls both run the graph) or the converted text
   (refused modules: imperatively only), with the same seeded parameters and inputs. Package
   modules are imported as ``tools/realworld`` does (heavy ``__init__``s stubbed, its stand-ins for
   optional dependencies), the original tree and a copy with the one module replaced. The touched
   methods are wrapped to count their calls: a case only counts if they ran.
3. Report a row per touched class: equal imperatively / hybridized, or why it was not run
   (:data:`NOT_RUN`), and the classes without a case. Exit status 1 if any run differs or fails.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPUS = REPO.parent / "shared" / "corpus"
sys.path.insert(0, str(HERE / "realworld"))
sys.path.insert(0, str(REPO / "tests" / "convert"))

from hybridize.transpile.emit.imports import Tree  # noqa: E402
from hybridize.transpile.emit.output import apply_conversions, convert_module  # noqa: E402
from hybridize.transpile.check.checker import check_source  # noqa: E402
from hybridize.transpile.diagnostics import Severity  # noqa: E402
from hybridize.transpile.source import decode_source, mentions_hybrid_forward  # noqa: E402

#: The package trees under RW_ROOT: (label, directory holding the top package, top package)
PACKAGES = [
    ("gluoncv", "gluoncv", "gluoncv"),
    ("imgclsmob", "gluoncv2", "gluoncv2"),
    ("gluon-nlp", "gluonnlp/gluonnlp-0.10.0/src", "gluonnlp"),
    ("gluon-ts", "gluonts", "gluonts"),
]


# ---------------------------------------------------------------------------------------------
# discovery
@dataclass
class Touched:
    """A module the conversions change, and what they touch in it."""

    label: str                      # e.g. gluoncv/nn/gn.py or corpus mxnet/gluon/loss.py
    path: Path
    root: Optional[Path]            # directory holding the top package (None: the corpus)
    module: str                     # dotted name
    classes: dict[str, list[str]]   # class -> touched methods
    emitted: bool                   # transpile writes the converted code
    applied: int
    removed: dict[str, int]
    converted_text: str
    emitted_text: Optional[str]
    errors_left: list[str] = field(default_factory=list)


def _touched_methods(before: str, after: str) -> dict[str, list[str]]:
    spans = []
    for node in ast.walk(ast.parse(before)):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    spans.append((item.lineno, item.end_lineno or item.lineno, node.name, item.name))
    out: dict[str, set[str]] = {}
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag == "equal":
            continue
        for first, last, cls, meth in spans:
            if first <= i1 + 1 <= last or (i2 > i1 and first <= i2 <= last):
                out.setdefault(cls, set()).add(meth)
    return {c: sorted(m) for c, m in sorted(out.items())}


def discover(rw_root: Path, corpus: Path) -> list[Touched]:
    found: list[Touched] = []
    trees = [("corpus", corpus, None, None)] + [(label, rw_root / rel / top, rw_root / rel, top)
                                                 for label, rel, top in PACKAGES]
    for label, top_dir, root, top in trees:
        if not top_dir.is_dir():
            continue
        tree = Tree.for_path(str(top_dir))
        for dirpath, dirs, names in os.walk(top_dir):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            for name in sorted(n for n in names if n.endswith(".py")):
                path = Path(dirpath) / name
                data = path.read_bytes()
                if not mentions_hybrid_forward(data):
                    continue
                text = decode_source(data)
                converted, applied = apply_conversions(text, str(path))
                if not applied:
                    continue
                rel = path.relative_to(top_dir if root is None else root)
                module = ".".join(rel.with_suffix("").parts)
                result = convert_module(text, str(path), tree, str(rel))
                before = [f.code for f in check_source(text, str(path), with_edits=False)]
                after = check_source(converted, str(path), with_edits=False)
                removed: dict[str, int] = {}
                for code in before:
                    removed[code] = removed.get(code, 0) + 1
                for f in after:
                    if f.code in removed:
                        removed[f.code] -= 1
                found.append(Touched(
                    f"{label} {rel}" if root is None else f"{label} {rel.relative_to(top)}", path, root,
                    module.removesuffix(".__init__"), _touched_methods(text, converted), result.converted > 0,
                    applied, {k: v for k, v in sorted(removed.items()) if v > 0}, converted,
                    (result.code or result.fallback) if result.converted > 0 else None,
                    sorted({f.code for f in after if f.severity is Severity.ERROR})))
    return found


# ---------------------------------------------------------------------------------------------
# cases
@dataclass
class Case:
    """How to run one touched class: ``build`` is an expression on ``m`` (the module) and ``mx``;
    ``inputs`` are shapes (seeded uniform values; ``positive``: |x| + 0.1) or ``tools/realworld``
    input specs ({"int": high, "shape": s}, {"const": v, "shape": s}, either with "dtype" (default
    float32), None, nested lists)."""

    build: str
    inputs: list
    positive: bool = False
    before: str = ""      # code run after the module's import (initialisation a user would do)
    pre_import: str = ""  # code run before it (what a stubbed package's __init__ would export)
    seed_random: bool = False  # the block samples: reseed before every call


#: (label of the module, class) -> case
CASES: dict[tuple[str, str], Case] = {
    ("corpus mxnet/gluon/loss.py", "PoissonNLLLoss"):
        Case("m.PoissonNLLLoss(from_logits=False, compute_full=True)", [(3, 4), (3, 4)], positive=True),
    ("corpus mxnet/gluon/loss.py", "SDMLLoss"): Case("m.SDMLLoss(smoothing_parameter=0.3)", [(4, 3), (4, 3)]),
    ("gluon-nlp loss/activation_regularizer.py", "TemporalActivationRegularizationLoss"):
        Case("m.TemporalActivationRegularizationLoss(beta=2.0)", [(5, 3, 4), (5, 3, 4)], positive=True),
    ("gluon-nlp model/language_model.py", "StandardRNN"):
        Case("m.StandardRNN(mode='gru', vocab_size=30, embed_size=16, hidden_size=16, num_layers=2, dropout=0.5, "
             "tie_weights=True)", [{"int": 30, "shape": (5, 2)}],
             pre_import="import gluonnlp.model.train.language_model as t, gluonnlp.model.train as p\n"
                        "p.AWDRNN, p.StandardRNN = t.AWDRNN, t.StandardRNN"),
    ("gluon-nlp model/sequence_sampler.py", "_SamplingStepUpdate"):
        Case("m._SamplingStepUpdate(beam_size=2, eos_id=1, temperature=1.0)",
             # int32 samples, lengths and alive mask, as gluon-nlp's SequenceSampler makes them (MXNet's
             # binary operators refuse the float32 mask against the int32 sampled ids)
             [{"int": 5, "shape": (2, 2, 3), "dtype": "int32"}, {"int": 3, "shape": (2, 2), "dtype": "int32"}, (4, 7),
              (2, 2), {"const": 1, "shape": (2, 2), "dtype": "int32"},
              []], seed_random=True),
    ("gluoncv nn/gn.py", "GroupNorm"): Case("m.GroupNorm(ngroups=2, in_channels=4)", [(2, 4, 3, 3)]),
    ("gluoncv model_zoo/monodepthv2/layers.py", "BackprojectDepth"):
        Case("m.BackprojectDepth(batch_size=2, height=4, width=5)", [(2, 1, 4, 5), (2, 4, 4)], positive=True),
    ("gluoncv model_zoo/monodepthv2/layers.py", "Project3D"):
        Case("m.Project3D(batch_size=2, height=4, width=5)", [(2, 4, 20), (2, 4, 4), (2, 4, 4)], positive=True),
    ("gluoncv loss.py", "SiamRPNLoss"):
        Case("m.SiamRPNLoss(batch_size=2)",
             [(2, 10, 17, 17), (2, 20, 17, 17), {"int": 2, "shape": (2, 5, 17, 17)}, {"int": 2890, "shape": (6,)},
              {"int": 2890, "shape": (9,)}, (2, 4, 5, 17, 17), (2, 5, 17, 17)]),
    ("imgclsmob models/irevnet.py", "IRevDownscale"): Case("m.IRevDownscale(scale=2)", [(1, 4, 4, 4)]),
    ("imgclsmob models/common.py", "SelectableDense"):
        Case("m.SelectableDense(in_channels=4, out_channels=3, use_bias=True, num_options=3)",
             [(2, 4), {"int": 3, "shape": (2,)}]),
    ("imgclsmob models/visemenet.py", "VisemeRnnBranch"):
        Case("m.VisemeRnnBranch(in_channels=8, out_channels_list=[6, 5, 4], rnn_num_layers=1, dropout_rate=0.0)",
             [(3, 2, 8)]),
    ("imgclsmob models/visemenet.py", "VisemeNet"):
        Case("m.VisemeNet(audio_features=6, audio_window_size=2, stage2_window_size=4, num_face_ids=5, "
             "num_landmarks=5, num_phonemes=4, num_visemes=3, dropout_rate=0.0)", [(5, 2, 6), (5, 5)]),
    ("gluon-ts mx/block/sndense.py", "SNDense"): Case("m.SNDense(units=3, in_units=4)", [(2, 4)]),
    ("gluon-ts mx/representation/custom_binning.py", "CustomBinning"):
        Case("m.CustomBinning(bin_centers=__import__('numpy').linspace(-1.0, 1.0, 5))", [(2, 6), {"const": 1.0, "shape": (2, 6)},
                                                                         None, []],
             before="block_init = lambda b: b.initialize_from_array(__import__('numpy').zeros(0))"),
    ("gluon-ts mx/representation/global_relative_binning.py", "GlobalRelativeBinning"):
        Case("m.GlobalRelativeBinning(num_bins=5, is_quantile=False, linear_scaling_limit=2)",
             [(2, 6), {"const": 1.0, "shape": (2, 6)}, None, []],
             before="block_init = lambda b: b.initialize_from_array(__import__('numpy').linspace(-2.0, 2.0, 20))"),
    ("gluoncv utils/viz/segmentation.py", "DeNormalize"):
        Case("m.DeNormalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])", [(2, 3, 4, 5)],
             # the module imports PIL for its palette helpers, not installed here; DeNormalize does not use it
             pre_import="import sys, types\n_p = types.ModuleType('PIL'); _p.Image = types.ModuleType('PIL.Image')\n"
                        "sys.modules['PIL'] = _p; sys.modules['PIL.Image'] = _p.Image"),
    ("gluon-nlp model/elmo.py", "ELMoBiLM"):
        Case("m.ELMoBiLM(rnn_type='lstmpc', output_size=4, filters=[[1, 4], [2, 4]], char_embed_size=4, "
             "char_vocab_size=20, num_highway=1, conv_layer_activation='relu', max_chars_per_token=5, "
             "input_size=4, hidden_size=8, proj_size=4, num_layers=2, cell_clip=3, proj_clip=3)",
             [{"int": 20, "shape": (2, 3, 5)},
              [[[(2, 4), (2, 8)], [(2, 4), (2, 8)]], [[(2, 4), (2, 8)], [(2, 4), (2, 8)]]],
              {"const": 1.0, "shape": (2, 3)}],
             # gluonnlp.vocab's __init__ imports the embedding evaluation registry (mx.registry, HY012):
             # the model module needs only the name ELMoCharVocab from it (used by get_model)
             pre_import="import sys, types\n_v = types.ModuleType('gluonnlp.vocab'); _v.__path__ = []\n"
                        "_e = types.ModuleType('gluonnlp.vocab.elmo'); _e.ELMoCharVocab = object\n"
                        "sys.modules['gluonnlp.vocab'] = _v; sys.modules['gluonnlp.vocab.elmo'] = _e; _v.elmo = _e"),
    # helper methods (F, tensors) called from much larger networks: run inside a one-method block,
    # with the shapes their networks pass (DeepFactor: (batch, history, 1) each; SAN: preds
    # (batch, length, quantiles), offset and scale (batch, 1) from keepdims sums)
    ("gluon-ts model/deep_factor/_network.py", "DeepFactorNetworkBase"):
        Case("m._VerifyNLL()", [(2, 5, 1), (2, 5, 1), (2, 5, 1)], positive=True,
             before="class _VerifyNLL(mx.gluon.HybridBlock):\n"
                    "    def hybrid_forward(self, F, y, mu, sigma):\n"
                    "        return m.DeepFactorNetworkBase.negative_normal_likelihood(self, F, y, mu, sigma)\n"
                    "m._VerifyNLL = _VerifyNLL"),
    ("gluon-ts model/san/_network.py", "SelfAttentionNetwork"):
        Case("m._VerifyPost()", [(2, 3, 4), (2, 1), (2, 1)], positive=True,
             before="class _VerifyPost(mx.gluon.HybridBlock):\n"
                    "    normalizer_eps = 1e-5\n"
                    "    def hybrid_forward(self, F, preds, offset, scale):\n"
                    "        return m.SelfAttentionNetwork._postprocess(self, F, preds, offset, scale)\n"
                    "m._VerifyPost = _VerifyPost",
             # the stand-in gluonts.mx.util of the prelude is empty; _postprocess does not use this name
             pre_import="import sys\nsys.modules['gluonts.mx.util'].weighted_average = None"),
}

#: (label, class) -> why it is not run
NOT_RUN: dict[tuple[str, str], str] = {
    ("imgclsmob models/jasper.py", "NemoMelSpecExtractor"):
        "needs librosa and scipy.signal (audio feature extraction in NumPy: imperative by design); not installed",
    ("imgclsmob models/ntsnet_cub.py", "NTSNet"):
        "a ResNet-50 backbone at 448x448 whose hybrid_forward runs NMS and crops imperatively (HY001/HY003 left)",
    ("gluon-nlp model/train/cache.py", "CacheCell"):
        "wraps a whole language model and loops over the time steps of its histories (HY005 left)",
    ("gluon-ts model/renewal/_network.py", "DeepRenewalPredictionNetwork"):
        "needs gluon-ts' distribution machinery (pydantic-validated components); sampling decoder",
}


# ---------------------------------------------------------------------------------------------
# running
_RUN = r"""
import sys, json, types, functools, importlib
import numpy as np
sys.path.insert(0, {tools!r})
import rwload
rwload.alias_mxnet()
for name, src in {prelude!r}.items():
    mod = types.ModuleType(name)
    mod.__path__ = []
    exec(src, mod.__dict__)
    if "." in name and name.rpartition(".")[0] in sys.modules:
        setattr(sys.modules[name.rpartition(".")[0]], name.rpartition(".")[2], mod)
    sys.modules[name] = mod
if {root!r}:
    rwload.setup({root!r}, {stubs!r})
else:
    sys.path.insert(0, {moddir!r})
import hybridize.runtime as mx
{pre_import}
m = importlib.import_module({module!r})
block_init = None
{before}
calls = {{}}
cls = getattr(m, {cls!r})
# count calls of the touched methods' code without wrapping them (a wrapper would hide the
# @static_graph marker the runtime checks by identity)
import inspect
targets = {{inspect.unwrap(getattr(cls, meth)).__code__: meth for meth in {methods!r}}}
def profile(frame, event, arg):
    if event == "call" and frame.f_code in targets:
        calls[targets[frame.f_code]] = calls.get(targets[frame.f_code], 0) + 1
sys.setprofile(profile)
block = eval({build!r}, {{"m": m, "mx": mx}})
block.initialize()
if block_init is not None:
    block_init(block)
with np.load({inputs!r}, allow_pickle=False) as z:
    arrays = {{k: z[k] for k in z.files}}
def rebuild(spec, path):
    if spec == "none":
        return None
    if isinstance(spec, list):
        return [rebuild(s, f"{{path}}_{{i}}") for i, s in enumerate(spec)]
    a = arrays[path]
    return mx.nd.array(a, dtype=a.dtype)
layout = json.loads({layout!r})
def flat(o):
    if isinstance(o, (list, tuple)):
        return [a for e in o for a in flat(e)]
    return [o.asnumpy()] if o is not None else []
def call():
    if {seed_random!r}:
        mx.random.seed(0)
    return flat(block(*[rebuild(s, f"in{{i}}") for i, s in enumerate(layout)]))
call()
rng = np.random.RandomState(1)
for name, p in sorted(block._collect_params_with_prefix().items()):
    if p.grad_req == "null" and block_init is not None:
        continue  # constants set by the block's own initialisation (bin edges)
    value = rng.standard_normal(p.shape).astype(np.float32) * 0.1
    if name.endswith(("running_var", "moving_var")):
        value = np.abs(value) + np.float32(0.5)  # variances stay positive
    p.set_data(value)
result = {{"imperative": call()}}
if {hybridize!r}:
    block.hybridize()
    result["hybridized"] = call()
np.savez({out!r}, **{{f"{{k}}_{{i}}": a for k, v in result.items() for i, a in enumerate(v)}})
print("CALLS " + json.dumps(calls))
"""


def _inputs(specs: list, rng: np.random.RandomState, positive: bool, arrays: dict, path: str = "in") -> list:
    """Materialize input specs into ``arrays`` (npz keys); returns the layout for the runner."""
    layout = []
    for i, spec in enumerate(specs):
        key = f"{path}{i}" if path == "in" else f"{path}_{i}"
        if spec is None:
            layout.append("none")
        elif isinstance(spec, list):
            layout.append(_inputs(spec, rng, positive, arrays, key))
        elif isinstance(spec, dict) and "const" in spec:
            arrays[key] = np.full(spec["shape"], spec["const"], dtype=spec.get("dtype", np.float32))
            layout.append("array")
        elif isinstance(spec, dict):
            arrays[key] = rng.randint(0, spec["int"], size=spec["shape"]).astype(spec.get("dtype", np.float32))
            layout.append("array")
        else:
            value = rng.uniform(-1, 1, size=spec).astype(np.float32)
            arrays[key] = (np.abs(value) + 0.1).astype(np.float32) if positive else value
            layout.append("array")
    return layout


def run_case(t: Touched, cls: str, case: Case) -> str:
    """Run ``cls`` both ways; returns the result text (raises AssertionError / RuntimeError)."""
    from both_ways import assert_same  # tests/convert

    rng = np.random.RandomState(0)
    arrays: dict = {}
    layout = _inputs(case.inputs, rng, case.positive, arrays)
    top = t.module.split(".")[0]
    with tempfile.TemporaryDirectory(prefix="verify_conv_") as tmp:
        np.savez(Path(tmp) / "inputs.npz", **arrays)
        sides = {}
        for which in ("original", "converted"):
            if t.root is not None:
                base = t.root
                if which == "converted":
                    base = Path(tmp) / "tree"
                    shutil.copytree(t.root / top, base / top)
                    text = t.emitted_text if t.emitted else t.converted_text
                    (base / t.path.relative_to(t.root)).write_text(text, encoding="utf-8")
                root, stubs, prelude, moddir = str(base), _stubs(t), _prelude(t, str(base)), ""
            else:
                text = t.path.read_text(encoding="utf-8")
                if which == "converted":
                    text = t.emitted_text if t.emitted else t.converted_text
                text = _standalone(t, text)
                moddir = str(Path(tmp) / which)
                os.makedirs(moddir)
                (Path(moddir) / "case_module.py").write_text(text, encoding="utf-8")
                root, stubs, prelude = "", [], {}
            out = Path(tmp) / f"{which}.npz"
            hybridize = which == "converted" and t.emitted
            script = _RUN.format(tools=str(HERE / "realworld"), prelude=prelude, root=root, stubs=stubs,
                                 moddir=moddir, module=t.module if t.root is not None else "case_module",
                                 before=case.before, pre_import=case.pre_import, cls=cls, methods=t.classes[cls], build=case.build,
                                 inputs=str(Path(tmp) / "inputs.npz"), layout=json.dumps(layout),
                                 seed_random=case.seed_random, hybridize=hybridize, out=str(out))
            done = subprocess.run([sys.executable, "-W", "ignore", "-c", script], capture_output=True, text=True,
                                  timeout=900)
            if done.returncode != 0:
                lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
                tail = " / ".join(lines[-3:]) if lines else str(done.returncode)
                raise RuntimeError(f"{which}: {tail}")
            calls = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("CALLS "))[6:])
            missing = [m for m in t.classes[cls] if not calls.get(m)]
            if missing:
                raise RuntimeError(f"{which}: the touched method(s) {', '.join(missing)} did not run")
            with np.load(out) as z:
                sides[which] = {k: z[k] for k in z.files}
    original = [sides["original"][k] for k in sorted(sides["original"], key=_order) if k.startswith("imperative")]
    # some outputs hold infinite bin edges by design: demand finite values somewhere, and equality
    assert original and any(np.isfinite(o).any() for o in original), "the original's outputs are not finite"
    kinds = []
    for kind in ("imperative", "hybridized"):
        got = [sides["converted"][k] for k in sorted(sides["converted"], key=_order) if k.startswith(kind)]
        if got:
            assert_same(original, got, f"converted, {kind}")
            kinds.append(kind)
    if t.emitted:
        return "equal **imperatively and hybridized** (the emitted `@static_graph` module runs its graph both times)"
    return f"equal imperatively (module refused: errors left {', '.join(t.errors_left)})"


def _order(key: str) -> tuple[str, int]:
    kind, _, index = key.rpartition("_")
    return kind, int(index)


def _stubs(t: Touched) -> list[str]:
    """Packages whose ``__init__`` is not run (as tools/realworld does): tools/realworld's list for the
    package and every package on the module's path."""
    import specs

    parts = t.module.split(".")[:-1]
    known = {"gluonnlp": specs.NLPS2, "gluonts": specs.TSS, "gluoncv2": specs.CV2S, "gluoncv": specs.CVS2}
    out = list(known.get(parts[0], []))
    for i in range(1, len(parts) + 1):
        if ".".join(parts[:i]) not in out:
            out.append(".".join(parts[:i]))
    return out


def _prelude(t: Touched, root: str) -> dict:
    """tools/realworld's stand-ins for optional dependencies of the package (specs.py)."""
    import specs

    top = t.module.split(".")[0]
    if top == "gluonnlp":
        return {k: v.replace(specs.NLP, root) for k, v in specs.NLPPRE.items()}
    if top == "gluonts":
        pre = dict(specs.TSPRE)
        pre["gluonts.mx"] = (f"import typing, mxnet as mx\n__path__ = [{root + '/gluonts/mx'!r}]\n"
                             "Tensor = typing.Union[mx.nd.NDArray, mx.sym.Symbol]\n")
        pre["gluonts.dataset.common"] = "Dataset = object\n"
        pre["gluonts.mx.context"] = "import mxnet as mx\ndef get_mxnet_context(*a, **k):\n    return mx.cpu()\n"
        pre["gluonts.mx.util"] = "pass\n"
        pre["gluonts.mx.digitize_stand_in"] = _DIGITIZE
        return pre
    if top == "gluoncv":
        return dict(specs.CVPRE)
    return {}


#: gluon-ts' binnings call ``F.Custom(data, bin_edges, op_type="digitize")``, an operator no module of
#: gluon-ts 0.8.1 registers; this stand-in (``np.digitize`` minus one, as its wavenet estimator bins)
#: is registered before the module is imported.
_DIGITIZE = '''
import numpy as np
import mxnet as mx

class _Digitize(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        data, edges = in_data[0].asnumpy(), in_data[1].asnumpy()
        self.assign(out_data[0], req[0], mx.nd.array(np.digitize(data, edges) - 1))

@mx.operator.register("digitize")
class _DigitizeProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)
    def list_arguments(self):
        return ["data", "bin_edges"]
    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []
    def create_operator(self, ctx, shapes, dtypes):
        return _Digitize()
'''


def _standalone(t: Touched, text: str) -> str:
    """A corpus module of MXNet's own package, made loadable on its own (its relative imports absolute)."""
    if t.label.startswith("corpus mxnet/gluon/"):
        text = text.replace("from .. import", "from mxnet import").replace("from ..", "from mxnet.") \
                   .replace("from .", "from mxnet.gluon.")
    return text


# ---------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rw_root", nargs="?", default="/tmp/dl/x")
    parser.add_argument("--corpus", default=str(CORPUS))
    parser.add_argument("--markdown", action="store_true", help="print the table for the docs")
    args = parser.parse_args(argv)
    touched = discover(Path(args.rw_root), Path(args.corpus))
    rows, failures = [], 0
    for t in touched:
        for cls, methods in t.classes.items():
            key = (t.label, cls)
            what = f"{t.applied} ({', '.join(f'{k} {v}' if v > 1 else k for k, v in t.removed.items())})"
            if key in CASES:
                try:
                    result = run_case(t, cls, CASES[key])
                    status = "ok  "
                except Exception as exc:  # noqa: BLE001 - a report: every case is tried
                    failures += 1
                    result, status = f"**FAILED** {type(exc).__name__}: {str(exc)[:300]}", "FAIL"
                case = CASES[key].build.replace("m.", "", 1)
            else:
                reason = NOT_RUN.get(key, "no case written")
                if reason == "no case written":
                    failures += 1
                result, status, case = f"not run: {reason}", "skip", "-"
            emitted = "emitted converted" if t.emitted else "refused (original emitted)"
            rows.append((t.label, cls, ", ".join(methods), what, emitted, case, result))
            print(f"{status}  {t.label}:{cls} [{', '.join(methods)}] {emitted}: {result}", flush=True)
    if args.markdown:
        print("\n| module | block (touched methods) | conversions in the module | transpile writes | case | result |")
        print("| --- | --- | --- | --- | --- | --- |")
        for label, cls, methods, what, emitted, case, result in rows:
            print(f"| {label} | `{cls}` ({methods}) | {what} | {emitted} | `{case}` | {result} |")
    ran = sum(1 for r in rows if r[-1].startswith("equal"))
    print(f"\n{len(touched)} modules with conversions, {len(rows)} touched classes: {ran} run both ways and equal, "
          f"{sum(1 for r in rows if r[-1].startswith('not run'))} not run, {failures} failed or without a case")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
