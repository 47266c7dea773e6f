"""``gluon.Trainer`` as MXNet 1.9.1's: recorded runs (tools/record_training_fixtures.py) of ``step``,
``allreduce_grads`` + ``update``, ``set_learning_rate``, lr_mult/wd_mult from the Parameters, with no
store, a ``'device'`` string (no store on one device) and ``mx.kv.create('local')`` instances (updating
on the store or not) give MXNet's parameters; states saved mid-run and loaded into a new Trainer
continue the run exactly; stale gradients and bad states files fail with one clear message.

Gradients are written directly and marked fresh (``data()._fresh_grad = True``), which is what a
backward pass does for a Parameter."""
from __future__ import annotations

import json
from pathlib import Path

import hybridize.runtime as mx
import numpy as np
import pytest
from hybridize.runtime import gluon
from hybridize.runtime.base import LoadError

FIXTURES = Path(__file__).parent / "fixtures"
RECORD = json.loads((FIXTURES / "trainers.json").read_text())
ARRAYS = np.load(FIXTURES / "trainers.npz")


def _params(case: str | None = None, seed: int = 0) -> tuple:
    w = gluon.Parameter("w", shape=(3, 4))
    b = gluon.Parameter("b", shape=(4,), lr_mult=2.0, wd_mult=0.0)
    rng = np.random.RandomState(seed)
    for p in (w, b):
        p.initialize(ctx=mx.cpu())
        p.set_data(mx.nd.array(ARRAYS[f"{case}/init_{p.name}"] if case else rng.uniform(-1, 1, p.shape)))
    return w, b


def _backward(params, grads) -> None:
    """What backward does for these parameters: write the gradient, mark it fresh."""
    for p, g in zip(params, grads):
        p.grad()[:] = g
        p.data()._fresh_grad = True


@pytest.mark.parametrize("case", sorted(RECORD["cases"]))
def test_trainer_run_equals_mxnet(case: str) -> None:
    spec = RECORD["cases"][case]
    w, b = _params(case)
    kv = mx.kv.create("local") if spec["kvstore"] == "local_instance" else spec["kvstore"]
    trainer = gluon.Trainer({"w": w, "b": b}, spec["optimizer"], spec["optimizer_params"], kvstore=kv,
                            update_on_kvstore=spec["update_on_kvstore"])
    for step in range(RECORD["steps"]):
        if spec["set_learning_rate_at"] == step:
            trainer.set_learning_rate(trainer.learning_rate * 0.5)
        _backward((w, b), [ARRAYS[f"{case}/g{step}_{p.name}"] for p in (w, b)])
        if spec["call"] == "step":
            trainer.step(4)
        else:
            trainer.allreduce_grads()
            trainer.update(4)
        assert trainer.learning_rate == spec["learning_rates"][step]
        for p in (w, b):
            np.testing.assert_allclose(p.data().asnumpy(), ARRAYS[f"{case}/w{step}_{p.name}"], rtol=1e-5, atol=1e-6,
                                       err_msg=f"{case}: {p.name} after step {step + 1}")
    assert (trainer._kvstore is not None) == spec["kvstore_made"]
    assert bool(trainer._update_on_kvstore) == spec["updated_on_kvstore"]


@pytest.mark.parametrize("kvstore", ["device", "local_instance"])
def test_saved_states_continue_the_run_exactly(tmp_path, kvstore: str) -> None:
    rng = np.random.RandomState(1)
    grads = [[rng.normal(0, 1, s).astype("float32") for s in ((3, 4), (4,))] for _ in range(5)]

    def make(params):
        kv = mx.kv.create("local") if kvstore == "local_instance" else kvstore
        return gluon.Trainer(params, "adam", {"learning_rate": 0.01, "wd": 0.01}, kvstore=kv)

    ref = _params()
    ref_trainer = make(ref)
    for g in grads:
        _backward(ref, g)
        ref_trainer.step(2)

    params = _params()
    trainer = make(params)
    for g in grads[:3]:
        _backward(params, g)
        trainer.step(2)
    trainer.save_states(str(tmp_path / "t.states"))
    copy = [gluon.Parameter(p.name, shape=p.shape, lr_mult=p.lr_mult, wd_mult=p.wd_mult) for p in params]
    for c, p in zip(copy, params):
        c.initialize(ctx=mx.cpu())
        c.set_data(p.data())
    resumed = make(copy)
    resumed.load_states(str(tmp_path / "t.states"))
    assert resumed.optimizer.num_update == 3 and resumed.learning_rate == 0.01
    assert resumed.optimizer.param_dict[1] is copy[1]      # lr_mult/wd_mult come from these parameters
    for g in grads[3:]:
        _backward(copy, g)
        resumed.step(2)
    for c, r in zip(copy, ref):
        np.testing.assert_array_equal(c.data().asnumpy(), r.data().asnumpy())


def test_a_states_file_executes_nothing_and_a_pickle_needs_an_explicit_opt_in(tmp_path, monkeypatch) -> None:
    import pickle

    w, b = _params()
    trainer = gluon.Trainer([w, b], "sgd", {"momentum": 0.9})
    _backward((w, b), [np.ones((3, 4)), np.ones(4)])
    trainer.step(1)
    trainer.save_states(str(tmp_path / "ours.states"))
    assert b"\x80" != (tmp_path / "ours.states").read_bytes()[:1]      # not a pickle: MXNet's .params layout
    states = trainer._updaters[0].states
    (tmp_path / "mxnet.states").write_bytes(pickle.dumps((states, trainer.optimizer)))
    monkeypatch.delenv("HYBRIDIZE_ALLOW_PICKLE_STATES", raising=False)
    with pytest.raises(LoadError, match=r"mxnet.states: is a pickled MXNet optimizer-states file: loading it would "
                                        r"run the pickle; pass allow_pickle=True or set HYBRIDIZE_ALLOW_PICKLE_STATES=1"):
        trainer.load_states(str(tmp_path / "mxnet.states"))
    trainer.load_states(str(tmp_path / "mxnet.states"), allow_pickle=True)
    monkeypatch.setenv("HYBRIDIZE_ALLOW_PICKLE_STATES", "1")
    trainer.load_states(str(tmp_path / "mxnet.states"))
    (tmp_path / "junk.states").write_bytes(b"not a states file at all")
    with pytest.raises(LoadError, match="junk.states: is not an optimizer-states file"):
        trainer.load_states(str(tmp_path / "junk.states"))


def test_states_for_other_parameters_fail_naming_the_parameter(tmp_path) -> None:
    w, b = _params()
    trainer = gluon.Trainer([w, b], "sgd", {"momentum": 0.9})
    _backward((w, b), [np.ones((3, 4)), np.ones(4)])
    trainer.step(1)
    trainer.save_states(str(tmp_path / "t.states"))

    swapped = gluon.Trainer([b, w], "sgd", {"momentum": 0.9})
    with pytest.raises(LoadError, match=r"optimizer state 0 has shape \(3, 4\) but Parameter 'b' has shape \(4,\) "
                                        r"\(the file was saved for 'w'\)"):
        swapped.load_states(str(tmp_path / "t.states"))
    fewer = gluon.Trainer([w], "sgd", {"momentum": 0.9})
    with pytest.raises(LoadError, match=r"holds optimizer states for 2 parameters \(w, b\), this Trainer has 1 \(w\)"):
        fewer.load_states(str(tmp_path / "t.states"))


def test_a_stale_gradient_raises_mxnets_warning_unless_ignored() -> None:
    w, b = _params()
    trainer = gluon.Trainer([w, b], "sgd", {"learning_rate": 0.1})
    _backward((w, b), [np.ones((3, 4)), np.ones(4)])
    trainer.step(1)
    _backward((w,), [np.ones((3, 4))])         # b was not used in this iteration
    before = b.data().asnumpy()
    with pytest.raises(UserWarning, match=r"Gradient of Parameter `b` on context cpu\(0\) has not been updated by "
                                          r"backward since last `step`.*call step with ignore_stale_grad=True"):
        trainer.step(1)
    trainer.step(1, ignore_stale_grad=True)
    np.testing.assert_array_equal(b.data().asnumpy(), before)   # skipped
    assert not w.data()._fresh_grad                              # consumed by the update


def test_parameters_with_grad_req_null_are_not_updated() -> None:
    w, b = _params()
    b.grad_req = "null"
    trainer = gluon.Trainer([w, b], "sgd", {"learning_rate": 0.1})
    before = b.data().asnumpy()
    _backward((w,), [np.ones((3, 4))])
    trainer.step(1)
    np.testing.assert_array_equal(b.data().asnumpy(), before)


def test_trainer_takes_an_optimizer_instance_a_parameter_dict_and_rejects_bad_params() -> None:
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    opt = mx.optimizer.Adam(learning_rate=0.5)
    trainer = gluon.Trainer(net.collect_params(), opt)
    assert trainer.optimizer is opt and trainer.learning_rate == 0.5
    assert [p.name for p in trainer._params] == sorted(net.collect_params().keys())
    with pytest.raises(AssertionError, match="optimizer_params must be None if optimizer is an instance"):
        gluon.Trainer(net.collect_params(), opt, {"learning_rate": 0.1})
    with pytest.raises(ValueError, match="First argument must be a list or dict of Parameters"):
        gluon.Trainer(net.collect_params().values().__iter__(), "sgd")
    with pytest.raises(ValueError, match="Cannot find optimizer nosuch"):
        gluon.Trainer(net.collect_params(), "nosuch")


def test_update_on_kvstore_refuses_allreduce_and_update_as_mxnet() -> None:
    w, b = _params()
    trainer = gluon.Trainer([w, b], "sgd", kvstore=mx.kv.create("local"))
    with pytest.raises(AssertionError, match=r"allreduce_grads\(\) when parameters are updated on kvstore"):
        trainer.allreduce_grads()


def test_an_mxnet_states_file_loads_when_allowed_and_continues_as_saved() -> None:
    """MXNet's own save_states output (a pickle of the Adam states, the optimizer and its FactorScheduler),
    loaded with allow_pickle=True: the states are MXNet's, the step count and schedule go on."""
    w = gluon.Parameter("w", shape=(3, 4))
    b = gluon.Parameter("b", shape=(4,))
    for p in (w, b):
        p.initialize(ctx=mx.cpu())
    trainer = gluon.Trainer([w, b], "adam", {"learning_rate": 0.5})
    with pytest.raises(LoadError, match="is a pickled MXNet optimizer-states file"):
        trainer.load_states(str(FIXTURES / "mxnet_adam.states"))
    trainer.load_states(str(FIXTURES / "mxnet_adam.states"), allow_pickle=True)
    expected = np.load(FIXTURES / "mxnet_adam_states.npz")
    for i in (0, 1):
        for j in (0, 1):
            np.testing.assert_array_equal(trainer._updaters[0].states[i][j].asnumpy(), expected[f"{i}_{j}"])
    opt = trainer.optimizer
    assert type(opt) is mx.optimizer.Adam and opt.num_update == 2 and opt.wd == 0.01
    assert isinstance(opt.lr_scheduler, mx.lr_scheduler.FactorScheduler)
    assert opt.param_dict[0] is w
    assert trainer.learning_rate == pytest.approx(0.01 * 0.9)


def test_set_data_while_updating_on_a_store_drops_the_store_as_mxnet() -> None:
    """As MXNet: the store's copy of the weight would be stale, so the Trainer resets its store; the same
    KVStore instance is initialized again at the next step, which MXNet's store refuses too."""
    from hybridize.runtime.base import HybridizeError

    w, _ = _params()
    trainer = gluon.Trainer([w], "sgd", {"learning_rate": 0.1}, kvstore=mx.kv.create("local"))
    _backward((w,), [np.ones((3, 4))])
    trainer.step(1)
    assert trainer._update_on_kvstore
    w.set_data(mx.nd.full((3, 4), 5.0))
    assert trainer._kvstore is None and not trainer._kv_initialized
    _backward((w,), [np.ones((3, 4))])
    with pytest.raises(HybridizeError, match="duplicate init of key 0"):
        trainer.step(1)


def test_a_store_without_optimizer_support_reduces_and_the_trainer_updates() -> None:
    w, _ = _params()
    before = w.data().asnumpy()
    trainer = gluon.Trainer([w], "sgd", {"learning_rate": 1.0}, kvstore=mx.kv.create("teststore"))
    _backward((w,), [np.ones((3, 4))])
    trainer.step(1)
    assert trainer._update_on_kvstore is False
    np.testing.assert_allclose(w.data().asnumpy(), before - 1, rtol=1e-6)
    with pytest.raises(ValueError, match="Please set update_on_kvstore=False"):
        gluon.Trainer([w], "sgd", kvstore=mx.kv.create("teststore"), update_on_kvstore=True)._init_kvstore()


@pytest.mark.parametrize("hybridize", [False, True])
def test_backward_marks_gradients_fresh_and_step_consumes_them(hybridize: bool) -> None:
    from hybridize.runtime import autograd

    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with autograd.record():
        loss = net(mx.nd.ones((4, 3))).sum()
    loss.backward()
    params = list(net.collect_params().values())
    assert all(p.data()._fresh_grad for p in params)
    weight = params[0].data().asnumpy()
    trainer.step(4)
    np.testing.assert_allclose(params[0].data().asnumpy(), weight - 0.1 * 4 / 4, rtol=1e-6)
    assert not any(p.data()._fresh_grad for p in params)
    with pytest.raises(UserWarning, match="has not been updated by backward since last `step`"):
        trainer.step(4)
