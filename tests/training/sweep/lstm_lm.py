"""gluon-nlp 0.x's word language model (scripts/language_model/word_language_model.py with
model/language_model.py's StandardRNN): Embedding + two-layer ``rnn.LSTM`` + a decoder whose weight is
tied to the embedding (``params=self.embedding.params``), hybridized; the hidden state is carried
over batches and ``detach``-ed, the batch goes through ``split_and_load(batch_axis=1)``, the loss is
divided by the batch's size, ``clip_global_norm`` of ``p.grad(ctx)``, ``trainer.step(1)`` with the
learning rate scaled by the sequence length for one step (``set_learning_rate``)."""
import numpy as np

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn, rnn

VOCAB, EMBED, BPTT, BATCH = 11, 6, 4, 3


class StandardRNN(gluon.HybridBlock):
    def __init__(self, vocab_size, embed_size, hidden_size, num_layers, dropout=0.0, **kwargs):
        super(StandardRNN, self).__init__(**kwargs)
        with self.name_scope():
            self.embedding = nn.HybridSequential()
            with self.embedding.name_scope():
                self.embedding.add(nn.Embedding(vocab_size, embed_size, weight_initializer=mx.init.Uniform(0.1)))
                if dropout:
                    self.embedding.add(nn.Dropout(dropout))
            self.encoder = rnn.LSTM(hidden_size, num_layers, dropout=dropout, input_size=embed_size)
            self.decoder = nn.HybridSequential()
            with self.decoder.name_scope():
                self.decoder.add(nn.Dense(vocab_size, in_units=hidden_size, flatten=False,
                                          params=self.embedding[0].params))

    def begin_state(self, *args, **kwargs):
        return self.encoder.begin_state(*args, **kwargs)

    def hybrid_forward(self, F, inputs, begin_state=None):
        encoded = self.embedding(inputs)
        encoded, state = self.encoder(encoded, begin_state)
        out = self.decoder(encoded)
        return out, state


def detach(hidden):
    if isinstance(hidden, (tuple, list)):
        hidden = [detach(h) for h in hidden]
    else:
        hidden = hidden.detach()
    return hidden


def get_batch(data_source, i, seq_len=None):
    seq_len = min(seq_len if seq_len else BPTT, len(data_source) - 1 - i)
    data = data_source[i:i + seq_len]
    target = data_source[i + 1:i + 1 + seq_len]
    return data, target


def run():
    rng = np.random.RandomState(6)
    train_data = mx.nd.array(rng.randint(0, VOCAB, size=(3 * BPTT + 1, BATCH)))
    context = [mx.cpu()]
    model = StandardRNN(VOCAB, EMBED, EMBED, 2)
    model.initialize(mx.init.Xavier(), ctx=context)
    hiddens = [model.begin_state(BATCH // len(context), func=mx.nd.zeros, ctx=ctx) for ctx in context]
    model(train_data[:BPTT], hiddens[0])
    params = model._collect_params_with_prefix()
    for name in sorted(params):
        params[name].set_data(mx.nd.array(rng.uniform(-0.4, 0.4, params[name].shape)))
    model.hybridize()
    trainer = gluon.Trainer(model.collect_params(), 'sgd', {'learning_rate': 2.0, 'momentum': 0, 'wd': 0})
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    parameters = model.collect_params()
    log = []
    for epoch in range(2):
        total_L, i, batch_i = 0.0, 0, 0
        hiddens = [model.begin_state(BATCH // len(context), func=mx.nd.zeros, ctx=ctx) for ctx in context]
        while i < len(train_data) - 1 - 1:
            seq_len = BPTT - 1 if batch_i == 1 else BPTT
            lr_batch_start = trainer.learning_rate
            trainer.set_learning_rate(lr_batch_start * seq_len / BPTT)
            data, target = get_batch(train_data, i, seq_len=seq_len)
            data_list = gluon.utils.split_and_load(data, context, batch_axis=1, even_split=True)
            target_list = gluon.utils.split_and_load(target, context, batch_axis=1, even_split=True)
            hiddens = detach(hiddens)
            Ls = []
            with autograd.record():
                for j, (X, y, h) in enumerate(zip(data_list, target_list, hiddens)):
                    output, h = model(X, h)
                    batch_L = loss(output.reshape(-3, -1), y.reshape((-1,)))
                    Ls.append(batch_L / (len(context) * X.size))
                    hiddens[j] = h
            for L in Ls:
                L.backward()
            grads = [p.grad(d.context) for p in parameters.values() for d in data_list]
            norm = gluon.utils.clip_global_norm(grads, 0.25)
            trainer.step(1)
            total_L += sum([mx.nd.sum(L).asscalar() for L in Ls])
            trainer.set_learning_rate(lr_batch_start)
            log.extend([norm, sum([mx.nd.sum(L).asscalar() for L in Ls])])
            i += seq_len
            batch_i += 1
        log.append(total_L)
        trainer.set_learning_rate(trainer.learning_rate * 0.5)
    return {"losses": log, "params": {k: p.data().asnumpy() for k, p in params.items()}}
