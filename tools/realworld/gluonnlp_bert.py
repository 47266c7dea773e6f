"""gluon-nlp 0.10's own BERT fine-tuning pieces on MXNet 1.9.1 and on the runtime: its ``BERTEncoder``,
``BERTModel`` and ``BERTClassifier`` (a tiny 2-layer model, units 8), ``BERTAdam`` by name through a
Trainer with ``update_on_kvstore=False``, ``nlp.utils.clip_grad_global_norm`` between
``allreduce_grads`` and ``update``, as scripts/bert/finetune_classifier.py; 3 steps from seeded
parameters. Prints the gradient norms, losses and the sum of |parameters| as one JSON line.

Not part of the package or the test suite: it needs gluon-nlp 0.10.0's sources
(``pip download --no-deps gluonnlp==0.10.0``, unpacked; its Cython tokenizer is replaced by a stand-in,
tokenization is not used) and MXNet 1.9.1 (with ``packaging``, which gluon-nlp imports):

    /tmp/mxnet-venv/bin/python tools/realworld/gluonnlp_bert.py SRC > /tmp/bert-mxnet.json
    python tools/realworld/gluonnlp_bert.py SRC --runtime > /tmp/bert-ours.json
    python tools/realworld/d2l_training.py --compare /tmp/bert-mxnet.json /tmp/bert-ours.json

(SRC: the unpacked ``gluonnlp-0.10.0/src``.) Measured (docs/training.md): the 7 values agree to 2e-5.
"""
import json
import sys
import types


def main():
    src = sys.argv[1]
    if "--runtime" in sys.argv:
        import os
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))
        from sweep_support import mxnet_is_the_runtime
        with mxnet_is_the_runtime():
            return drive(src)
    return drive(src)


def drive(src):
    stub = types.ModuleType("gluonnlp.data.fast_bert_tokenizer")
    for n in ("is_control", "is_punctuation", "is_whitespace", "BasicTokenizer", "WordpieceTokenizer"):
        setattr(stub, n, lambda *a, **k: None)
    sys.modules["gluonnlp.data.fast_bert_tokenizer"] = stub
    sys.path.insert(0, src)
    import numpy as np
    import gluonnlp as nlp
    import mxnet as mx
    from mxnet import gluon, autograd
    from gluonnlp.model.bert import BERTEncoder, BERTModel, BERTClassifier
    rng = np.random.RandomState(0)
    encoder = BERTEncoder(num_layers=2, units=8, hidden_size=16, max_length=16, num_heads=2, dropout=0.0, output_all_encodings=False)
    bert = BERTModel(encoder, vocab_size=20, token_type_vocab_size=2, units=8, embed_size=8, word_embed=None, use_pooler=True, use_decoder=False, use_classifier=False)
    model = BERTClassifier(bert, num_classes=2, dropout=0.0)
    model.initialize(mx.init.Normal(0.02))
    ids = mx.nd.array(rng.randint(0, 20, size=(4, 6))); seg = mx.nd.zeros((4, 6)); vl = mx.nd.array([6, 4, 5, 3]); y = mx.nd.array([0, 1, 1, 0])
    model(ids, seg, vl)
    params = model._collect_params_with_prefix()
    for name in sorted(params):
        params[name].set_data(mx.nd.array(rng.normal(0, 0.3, params[name].shape)))
    model.hybridize(static_alloc=True)
    trainer = gluon.Trainer(model.collect_params(), 'bertadam', {'learning_rate': 0.01, 'epsilon': 1e-6, 'wd': 0.01}, update_on_kvstore=False)
    for _, v in model.collect_params('.*beta|.*gamma|.*bias').items():
        v.wd_mult = 0.0
    loss_fn = gluon.loss.SoftmaxCELoss()
    plist = [p for p in model.collect_params().values() if p.grad_req != 'null']
    log = []
    for step in range(3):
        with autograd.record():
            ls = loss_fn(model(ids, seg, vl), y).mean()
        ls.backward()
        trainer.allreduce_grads()
        norm = nlp.utils.clip_grad_global_norm(plist, 1)
        log.append(float(norm.asscalar()) if hasattr(norm, "asscalar") else float(norm))
        trainer.update(1)
        log.append(float(ls.asscalar()))
    log.append(float(sum(np.abs(p.data().asnumpy()).sum() for p in params.values())))
    print(json.dumps([[v] for v in log]))   # rows, as d2l_training.py --compare reads them
    return 0


if __name__ == "__main__":
    sys.exit(main())
