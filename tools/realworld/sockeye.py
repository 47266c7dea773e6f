"""Sockeye 2.3.17 on the runtime: 25 of its blocks and a tiny whole model, three ways.

The measurement behind docs/checker-realworld.md ("Unseen code: Sockeye 2.3.17 and d2l 0.17.6").
Not part of the package or the test suite: it needs the Sockeye sources and MXNet 1.9.1.

    pip download --no-deps sockeye==2.3.17 -d /tmp/dl2   # unpack the wheel: /tmp/dl2/x/sockeye/sockeye
    hybridize transpile /tmp/dl2/x/sockeye/sockeye -o /tmp/sweep-out/sockeye --keep-going
    /tmp/mxnet-venv/bin/python tools/realworld/sockeye.py mxnet /tmp/sk-mxnet.npz
    python tools/realworld/sockeye.py ours /tmp/sk-ours.npz              # the original source on the runtime
    python tools/realworld/sockeye.py transpiled /tmp/sk-transpiled.npz  # the transpiled package
    python tools/realworld/sockeye.py compare /tmp/sk-mxnet.npz /tmp/sk-ours.npz

Modes: ``mxnet`` runs the original source on MXNet 1.9.1; ``ours`` the original source with
``mxnet`` aliased to ``hybridize.runtime`` (an import hook; ``hybrid_forward`` runs with ``F = nd``
imperatively); ``transpiled`` the package ``hybridize transpile`` wrote (``@static_graph``: every
call runs the graph). Every block is built, deferred-initialized, given seeded parameters (sorted
by name; the fixed positional embeddings are constants) and run on seeded inputs imperatively
("imp") and after ``hybridize()`` ("hyb"); the model (2 encoder and 2 decoder layers, model size 8,
vocabulary 14, tied embeddings) runs its training forward pass, beam search (beam 3) and beam 1,
each hybridized and not. ``compare`` lists every output that differs (rtol 1e-4, atol 1e-5, dtypes
must agree). Paths: ``SOCKEYE_SRC`` (the directory holding ``sockeye/``, default /tmp/dl2/x/sockeye)
and ``SOCKEYE_TRANSPILED`` (default /tmp/sweep-out/sockeye). Sockeye imports portalocker and
sacrebleu (and yaml) at module level for training and scoring, which this does not use: small
stand-ins are put on the path when they are not installed.
"""
import importlib
import importlib.abc
import importlib.util
import os
import sys
import tempfile
import traceback

import numpy as np

STANDINS = {
    "portalocker": "LOCK_EX = 2\nLOCK_NB = 4\nclass LockException(Exception):\n    pass\n"
                   "def lock(*a, **k):\n    pass\ndef unlock(*a, **k):\n    pass\n",
    "sacrebleu": "",
    "yaml": "YAMLObjectMetaclass = type\nclass YAMLObject:\n    pass\nclass UnsafeLoader:\n    pass\n"
            "def dump(*a, **k):\n    return ''\ndef load(*a, **k):\n    return None\n",
}


def compare(ref_path: str, other_path: str) -> int:
    a, b = np.load(ref_path), np.load(other_path)
    ok = 0
    keys = sorted(set(a.files) | set(b.files))
    for k in keys:
        if k not in a.files or k not in b.files:
            print("missing", k)
            continue
        x, y = a[k], b[k]
        if x.dtype.kind in "OU" or y.dtype.kind in "OU":
            same = x.tolist() == y.tolist()
        else:
            same = x.shape == y.shape and x.dtype == y.dtype and np.allclose(
                x.astype("float64"), y.astype("float64"), rtol=1e-4, atol=1e-5, equal_nan=True)
        if same:
            ok += 1
        else:
            print("DIFF", k, x.shape, x.dtype, y.shape, y.dtype)
    print(f"{ok} of {len(keys)} outputs equal")
    return 0 if ok == len(keys) else 1


if sys.argv[1] == "compare":
    sys.exit(compare(sys.argv[2], sys.argv[3]))

backend, out = sys.argv[1], sys.argv[2]
assert backend in ("mxnet", "ours", "transpiled"), backend
only = sys.argv[3:] or None
standins = tempfile.mkdtemp(prefix="sockeye-standins-")
for mod, text in STANDINS.items():
    if importlib.util.find_spec(mod) is None:
        with open(os.path.join(standins, mod + ".py"), "w") as f:
            f.write(text)
sys.path.append(standins)
if backend == "transpiled":
    sys.path.insert(0, os.environ.get("SOCKEYE_TRANSPILED", "/tmp/sweep-out/sockeye"))
else:
    sys.path.insert(0, os.environ.get("SOCKEYE_SRC", "/tmp/dl2/x/sockeye"))
if backend == "ours":
    class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        """``mxnet[.x]`` is ``hybridize.runtime[.x]``."""

        def find_spec(self, name, path, target=None):
            if name == "mxnet" or name.startswith("mxnet."):
                return importlib.util.spec_from_loader(name, self)
            return None

        def create_module(self, spec):
            return importlib.import_module("hybridize.runtime" + spec.name[len("mxnet"):])

        def exec_module(self, module):
            pass

    sys.meta_path.insert(0, _Alias())
    import types

    import hybridize.runtime as _rt
    # data_io.py (imported by beam_search) derives its batch iterator from mx.io.DataIter, which
    # the runtime does not have; the transpiled package has a placeholder there, the original
    # source needs a stand-in to import
    _rt.io = types.SimpleNamespace(DataIter=object, DataBatch=object, DataDesc=object)

if backend == "transpiled":
    import hybridize.runtime as mx
else:
    import mxnet as mx  # hybridize.runtime for "ours"
from sockeye import beam_search, data_io, decoder, encoder, layers, loss, model, transformer  # noqa: E402
from sockeye import constants as C  # noqa: E402

results = {}


def arr(rs, shape, kind="f", low=0, high=5):
    """A seeded float32 input: normal values, or integers in [low, high) with kind "i"."""
    if kind == "f":
        return mx.nd.array(rs.standard_normal(shape).astype("float32"))
    return mx.nd.array(rs.randint(low, high, size=shape).astype("float32"))


def set_params(block, seed):
    """Every parameter (sorted by name, so the same on every backend) set to seeded values."""
    rs = np.random.RandomState(seed)
    for name, p in sorted(block.collect_params().items()):
        if p.grad_req == "null" and "weight" in name and "pos" in name:
            continue  # constants (positional embeddings)
        shape = p.shape
        p.set_data(mx.nd.array((rs.standard_normal(shape) * 0.3).astype(p.dtype if isinstance(p.dtype, str) else "float32")))


def flat(x):
    """Outputs (nested lists of arrays, numbers, None) as a flat list of numpy arrays."""
    if isinstance(x, (list, tuple)):
        out = []
        for y in x:
            out += flat(y)
        return out
    if x is None or isinstance(x, (int, float)):
        return [np.asarray(x if x is not None else np.nan)]
    return [x.asnumpy()]


def case(name):
    """Runs the decorated case (returning the block and a call) imperatively and hybridized."""
    def deco(fn):
        if only and name not in only:
            return fn
        for mode in ("imp", "hyb"):
            try:
                block, call = fn()
                if mode == "hyb":
                    block.hybridize()
                res = flat(call(block))
                for i, r in enumerate(res):
                    results[f"{name}/{mode}/{i}"] = r
            except Exception as exc:  # record, keep going
                results[f"{name}/{mode}/error"] = np.asarray(f"{type(exc).__name__}: {exc}"[:400])
                print(f"{name}/{mode}: {type(exc).__name__}: {exc}", file=sys.stderr)
                traceback.print_exc(limit=-3)
        return fn
    return deco


def init(block, *warmup):
    """Initialize, finish deferred initialization with one call, set seeded parameters."""
    block.initialize()
    if warmup:
        block(*warmup)  # finish deferred initialization
    set_params(block, 7)
    return block


def tconfig(decoder_type=C.TRANSFORMER_TYPE, use_lhuc=False):
    """A small transformer: model size 8, 2 heads, 2 layers, no dropout."""
    return transformer.TransformerConfig(model_size=8, attention_heads=2, feed_forward_num_hidden=12,
                                         act_type="relu", num_layers=2, dropout_attention=0.0, dropout_act=0.0,
                                         dropout_prepost=0.0, positional_embedding_type="fixed",
                                         preprocess_sequence="n", postprocess_sequence="r",
                                         max_seq_len_source=10, max_seq_len_target=10, decoder_type=decoder_type,
                                         use_lhuc=use_lhuc)


@case("LHUC")
def _():
    rs = np.random.RandomState(1)
    x = arr(rs, (2, 3, 8))
    return init(layers.LHUC(8), x), lambda b: b(x)


@case("OutputLayer")
def _():
    rs = np.random.RandomState(2)
    x = arr(rs, (2, 3, 8))
    return init(layers.OutputLayer(8, 11), x, None), lambda b: b(x, None)


@case("LengthRatio")
def _():
    rs = np.random.RandomState(3)
    x = arr(rs, (2, 4, 8))
    n = mx.nd.array([3, 4])
    return init(layers.LengthRatio(8, 2), x, n), lambda b: b(x, n)


@case("MultiHeadSelfAttention")
def _():
    rs = np.random.RandomState(4)
    x = arr(rs, (4, 2, 8))  # (length, batch, depth)
    lengths = mx.nd.array([[4] * 4, [4] * 4, [2] * 4, [2] * 4]).astype("int32")  # (batch*heads, lq)
    blk = layers.MultiHeadSelfAttention("att_", depth_att=8, heads=2, depth_out=8)
    return init(blk, x, None, lengths, None), lambda b: b(x, None, lengths, None)


@case("MultiHeadSelfAttentionStates")
def _():
    rs = np.random.RandomState(5)
    x = arr(rs, (1, 2, 8))
    prev = arr(rs, (3, 2, 16))
    blk = layers.MultiHeadSelfAttention("att_", depth_att=8, heads=2, depth_out=8)
    return init(blk, x, prev), lambda b: b(x, prev)


@case("MultiHeadAttention")
def _():
    rs = np.random.RandomState(6)
    q = arr(rs, (3, 2, 8))
    mem = arr(rs, (5, 2, 8))
    lengths = mx.nd.array([[5] * 3, [5] * 3, [2] * 3, [2] * 3]).astype("int32")
    blk = layers.MultiHeadAttention("enc_", depth_att=8, heads=2, depth_out=8, depth_key_value=8)
    return init(blk, q, mem, lengths), lambda b: b(q, mem, lengths)


@case("PositionalEmbeddingsFixed")
def _():
    rs = np.random.RandomState(7)
    x = arr(rs, (2, 5, 8))
    blk = layers.PositionalEmbeddings("fixed", 8, 10, "pos_", True, False)
    return init(blk, x, None), lambda b: b(x, None)


@case("PositionalEmbeddingsSteps")
def _():
    rs = np.random.RandomState(8)
    x = arr(rs, (2, 1, 8))
    steps = mx.nd.array([[3], [6]])
    blk = layers.PositionalEmbeddings("fixed", 8, 10, "pos_", True, True)
    return init(blk, x, steps), lambda b: b(x, steps)


@case("PositionalEmbeddingsLearned")
def _():
    rs = np.random.RandomState(9)
    x = arr(rs, (2, 5, 8))
    blk = layers.PositionalEmbeddings("learned", 8, 10, "lpos_", False, False)
    return init(blk, x, None), lambda b: b(x, None)


@case("SSRU")
def _():
    rs = np.random.RandomState(10)
    x = arr(rs, (4, 2, 8))
    prev = arr(rs, (1, 2, 8))
    blk = layers.SSRU(8, inference_only=False)
    return init(blk, x, prev), lambda b: b(x, prev)


@case("SSRUInference")
def _():
    rs = np.random.RandomState(11)
    x = arr(rs, (1, 2, 8))
    prev = arr(rs, (1, 2, 8))
    blk = layers.SSRU(8, inference_only=True)
    return init(blk, x, prev), lambda b: b(x, prev)


@case("TransformerEncoderBlock")
def _():
    rs = np.random.RandomState(12)
    x = arr(rs, (4, 2, 8))
    lengths = mx.nd.array([[4] * 4, [4] * 4, [3] * 4, [3] * 4]).astype("int32")
    blk = transformer.TransformerEncoderBlock(tconfig(use_lhuc=True), "enc0_", "float32")
    return init(blk, x, lengths), lambda b: b(x, lengths)


@case("TransformerEncoder")
def _():
    rs = np.random.RandomState(13)
    x = arr(rs, (2, 5, 8))
    vl = mx.nd.array([5, 3])
    blk = encoder.TransformerEncoder(tconfig())
    return init(blk, x, vl), lambda b: b(x, vl)


@case("AutoRegressiveBias")
def _():
    rs = np.random.RandomState(14)
    x = arr(rs, (2, 4, 8))
    blk = transformer.AutoRegressiveBias("ab_")
    return init(blk), lambda b: b(x)


def _decoder_case(decoder_type, inference_only, seed):
    rs = np.random.RandomState(seed)
    enc = arr(rs, (2, 5, 8))
    vl = mx.nd.array([5, 3])
    blk = decoder.TransformerDecoder(tconfig(decoder_type), inference_only=inference_only)
    blk.initialize()
    if inference_only:
        step = arr(rs, (2, 1, 8))
        states = blk.init_state_from_encoder(enc, vl)
    else:
        step = arr(rs, (2, 4, 8))
        states = blk.init_state_from_encoder(enc, vl, target_embed=step)
    blk(step, states)
    set_params(blk, 7)
    if inference_only:
        states = blk.init_state_from_encoder(enc, vl)
    else:
        states = blk.init_state_from_encoder(enc, vl, target_embed=step)

    def call(b):
        outs, new_states = b(step, states)
        if inference_only:  # a second step, from the new states
            outs2, new_states2 = b(step, new_states)
            return [outs, new_states, outs2, new_states2]
        return [outs, new_states]

    return blk, call


@case("TransformerDecoderTraining")
def _():
    return _decoder_case(C.TRANSFORMER_TYPE, False, 15)


@case("TransformerDecoderInference")
def _():
    return _decoder_case(C.TRANSFORMER_TYPE, True, 16)


@case("SSRUDecoderInference")
def _():
    return _decoder_case(C.SSRU_TRANSFORMER, True, 17)


@case("UpdateScores")
def _():
    rs = np.random.RandomState(18)
    td = arr(rs, (4, 6))
    finished = mx.nd.array([0, 1, 0, 0]).astype("int32")
    inactive = mx.nd.array([0, 0, 1, 0]).astype("int32")
    acc = arr(rs, (4, 1))
    lengths = mx.nd.array([1, 2, 3, 4]).astype("int32")
    maxl = mx.nd.array([5, 5, 5, 4]).astype("int32")
    unk = arr(rs, (4, 6))
    pad = mx.nd.full((4, 5), np.inf)
    eos = mx.nd.array(np.where(np.arange(6) == 2, 0, np.inf)[None].repeat(4, 0).astype("float32"))
    blk = beam_search.UpdateScores()
    args = (td, finished, inactive, acc, lengths, maxl, unk, pad, eos)
    return init(blk), lambda b: b(*args)


@case("CandidateScorer")
def _():
    rs = np.random.RandomState(19)
    s = arr(rs, (4, 1))
    lengths = mx.nd.array([[1], [2], [3], [4]])
    ref = mx.nd.array([[2], [2], [3], [5]])
    blk = beam_search.CandidateScorer(1.2, 0.5, 0.3)
    return init(blk), lambda b: [b(s, lengths, ref), b.unnormalize(s, lengths, ref)]


@case("SortNormalizeAndUpdateFinished")
def _():
    rs = np.random.RandomState(20)
    hyp = mx.nd.array([1, 0, 3, 2]).astype("int32")
    words = mx.nd.array([0, 5, 3, 4]).astype("int32")
    finished = mx.nd.array([0, 1, 0, 0]).astype("int32")
    acc = arr(rs, (4, 1))
    lengths = mx.nd.array([1, 2, 3, 4]).astype("float32")
    ref = mx.nd.array([[2], [2], [3], [5]])
    blk = beam_search.SortNormalizeAndUpdateFinished("float32", C.PAD_ID, C.EOS_ID,
                                                     beam_search.CandidateScorer(1.0, 0.0, 0.0))
    return init(blk), lambda b: b(hyp, words, finished, acc, lengths, ref)


@case("TopK")
def _():
    rs = np.random.RandomState(21)
    scores = arr(rs, (4, 7))
    offset = mx.nd.array([0, 0, 2, 2]).astype("int32")
    blk = beam_search.TopK(2)
    return init(blk), lambda b: b(scores, offset)


@case("SortStates")
def _():
    rs = np.random.RandomState(22)
    hyp = mx.nd.array([1, 0, 3, 2]).astype("int32")
    states = [arr(rs, (4, 1)), arr(rs, (5, 4, 8)), arr(rs, (3, 4, 8)), arr(rs, (4,))]
    blk = beam_search.SortStates([["s", "e"], ["d", "b"]], "ss_")
    return init(blk), lambda b: b(hyp, *states)


@case("GreedyTop1")
def _():
    rs = np.random.RandomState(23)
    scores = arr(rs, (1, 9))
    vs = mx.nd.array([3, 5, 7, 9, 11, 13, 15, 17, 19]).astype("int32")
    factors = mx.nd.array([[4]]).astype("int32")
    blk = beam_search.GreedyTop1()
    return init(blk), lambda b: b(scores, vs, factors)


@case("CrossEntropyLoss")
def _():
    rs = np.random.RandomState(24)
    logits = arr(rs, (2, 3, 6))
    labels = arr(rs, (2, 3), "i", 0, 6)
    blk = loss.CrossEntropyLoss(label_smoothing=0.1)
    return init(blk), lambda b: mx.gluon.HybridBlock.forward(b, logits, labels)


@case("CrossEntropyLossWithoutSoftmaxOutput")
def _():
    rs = np.random.RandomState(25)
    logits = arr(rs, (2, 3, 6))
    labels = arr(rs, (2, 3), "i", 0, 6)
    blk = loss.CrossEntropyLossWithoutSoftmaxOutput(label_smoothing=0.1, num_labels=6)
    return init(blk), lambda b: mx.gluon.HybridBlock.forward(b, logits, labels)


@case("WeightNormalization")
def _():
    rs = np.random.RandomState(26)
    w = arr(rs, (6, 4))
    return init(layers.WeightNormalization(6), w), lambda b: b(w)


@case("BatchScorer")
def _():
    rs = np.random.RandomState(27)
    logits = arr(rs, (2, 4, 6))
    labels = mx.nd.array([[4, 5, 3, 0], [2, 3, 0, 0]])
    ratio = mx.nd.array([1.2, 0.8])
    src_len = mx.nd.array([4, 3])
    trg_len = mx.nd.array([3, 2])
    from sockeye import scoring
    blk = scoring.BatchScorer(beam_search.CandidateScorer(1.0, 0.0, 0.5), C.SCORING_TYPE_NEGLOGPROB,
                              softmax_temperature=1.5)
    return init(blk), lambda b: b(logits, labels, ratio, src_len, trg_len)


# -- the whole model ---------------------------------------------------------------------------
def whole_model() -> None:
    """Training forward pass, beam search (beam 3) and beam 1, imperative and hybridized."""
    V = 14
    cfg = model.ModelConfig(
        config_data=data_io.DataConfig(data_statistics=None, max_seq_len_source=10, max_seq_len_target=10,
                                       num_source_factors=1, num_target_factors=1),
        vocab_source_size=V, vocab_target_size=V,
        config_embed_source=encoder.EmbeddingConfig(V, 8, 0.0), config_embed_target=encoder.EmbeddingConfig(V, 8, 0.0),
        config_encoder=tconfig(), config_decoder=tconfig(), config_length_task=None,
        weight_tying_type=C.WEIGHT_TYING_SRC_TRG_SOFTMAX)
    rs = np.random.RandomState(0)
    src = mx.nd.array(rs.randint(4, V, size=(2, 6, 1)).astype("float32"))
    src_len = mx.nd.array([6, 4])
    trg = mx.nd.array(rs.randint(4, V, size=(2, 5, 1)).astype("float32"))
    trg_len = mx.nd.array([5, 3])
    for hyb in (False, True):
        tag = "hyb" if hyb else "imp"
        for inference_only in (False, True):
            m = model.SockeyeModel(cfg, inference_only=inference_only)
            m.initialize()
            if not inference_only:
                m(src, src_len, trg, trg_len)
            else:
                m.encode_and_initialize(src, src_len)
            set_params(m, 7)
            for name, p in m.collect_params().items():
                if name.endswith("target_output_bias"):  # no early <eos>: longer hypotheses
                    b = p.data().asnumpy()
                    b[C.EOS_ID] = -4.0
                    p.set_data(mx.nd.array(b))
            if hyb:
                m.hybridize()
            if not inference_only:
                outs = m(src, src_len, trg, trg_len)
                for k in sorted(outs):
                    results[f"model-train/{tag}/{k}"] = outs[k].asnumpy()
                continue
            for beam in (3, 1):
                search = beam_search.get_search_algorithm(
                    [m], beam_size=beam, context=mx.cpu(), vocab_target={str(i): i for i in range(V)},
                    output_scores=True, scorer=beam_search.CandidateScorer(1.0, 0.0, 0.0),
                    constant_length_ratio=0.0, hybridize=hyb)
                try:
                    res = search(src, src_len, None, [None, None], [None, None], mx.nd.array([8, 7]).astype("int32"))
                    for i, r in enumerate(res):
                        if isinstance(r, (np.ndarray, mx.nd.NDArray)):
                            results[f"model-beam{beam}/{tag}/{i}"] = r if isinstance(r, np.ndarray) else r.asnumpy()
                except Exception as exc:  # record, keep going
                    traceback.print_exc()
                    results[f"model-beam{beam}/{tag}/error"] = np.asarray(f"{type(exc).__name__}: {exc}"[:400])


if not only or "model" in only:
    whole_model()
np.savez(out, **results)
print(f"{backend}: {sum(1 for k in results if not k.endswith('error'))} outputs, "
      f"{sum(1 for k in results if k.endswith('error'))} errors")
