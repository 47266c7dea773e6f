"""Every MXNet 1.9.1 optimizer follows MXNet's recorded trajectory: parameters and optimizer states
after each of 5 steps with fixed gradients (tools/record_training_fixtures.py recorded them with
MXNet 1.9.1). The cases cover weight decay, gradient clipping, rescale_grad, lr_mult/wd_mult (through
param_dict and set_lr_mult/set_wd_mult), an lr_scheduler, begin_num_update, float16 weights with
float32 master copies (multi_precision), and both the aggregated Updater path and per-parameter calls."""
from __future__ import annotations

import json
import types
from pathlib import Path

import hybridize.runtime as mx
import numpy as np
import pytest
from hybridize.runtime.optimizer import optimizer as opt_module

FIXTURES = Path(__file__).parent / "fixtures"
RECORD = json.loads((FIXTURES / "optimizers.json").read_text())
ARRAYS = np.load(FIXTURES / "optimizers.npz")


def _flat_state(state) -> list:
    if state is None:
        return []
    if isinstance(state, mx.nd.NDArray):
        return [state.asnumpy()]
    return [a for s in state for a in _flat_state(s)]


def _optimizer(case: dict):
    kwargs = dict(case["kwargs"])
    extras = case["extras"]
    if case["param_idx2name"]:
        kwargs["param_idx2name"] = {int(k): v for k, v in case["param_idx2name"].items()}
    if "scheduler" in extras:
        cls, skw = extras["scheduler"]
        kwargs["lr_scheduler"] = getattr(mx.lr_scheduler, cls)(**skw)
    if "param_dict" in extras:
        kwargs["param_dict"] = {i: types.SimpleNamespace(lr_mult=lm, wd_mult=wm)
                                for i, (lm, wm) in enumerate(extras["param_dict"])}
    opt = mx.optimizer.create(case["optimizer"], **kwargs)
    if "set_mult" in extras:
        opt.set_lr_mult({int(k): v for k, v in extras["set_mult"][0].items()})
        opt.set_wd_mult({int(k): v for k, v in extras["set_mult"][1].items()})
    return opt


def _tolerance(dtype: str) -> dict:
    return {"rtol": 1e-3, "atol": 1e-3} if dtype == "float16" else {"rtol": 1e-5, "atol": 1e-6}


@pytest.fixture
def no_sgld_noise(monkeypatch):
    """SGLD adds Gaussian noise from MXNet's random stream; the recording replaced it by zeros, so here too."""
    monkeypatch.setattr(opt_module, "normal",
                        lambda loc, scale, shape, dtype, ctx: mx.nd.zeros(shape, ctx, dtype=dtype))


@pytest.mark.parametrize("name", sorted(RECORD["cases"]))
def test_trajectory_equals_mxnet(name: str, no_sgld_noise) -> None:
    case = RECORD["cases"][name]
    dtype = case["dtype"]
    weights = [mx.nd.array(ARRAYS[f"{name}/w{i}"], dtype=dtype) for i in range(2)]
    opt = _optimizer(case)
    updater = mx.optimizer.get_updater(opt)
    states: dict = {}
    for step in range(RECORD["steps"]):
        grads = [mx.nd.array(ARRAYS[f"{name}/g{step}_{i}"], dtype=dtype) for i in range(2)]
        if case["mode"] == "updater":
            updater([0, 1], grads, weights)
            states = updater.states
        else:
            for i, (w, g) in enumerate(zip(weights, grads)):
                if i not in states:
                    states[i] = opt.create_state_multi_precision(i, w)
                opt.update_multi_precision(i, w, g, states[i])
        for i, w in enumerate(weights):
            assert w.dtype == np.dtype(dtype)
            np.testing.assert_allclose(w.asnumpy(), ARRAYS[f"{name}/w{step}_{i}"], **_tolerance(dtype),
                                       err_msg=f"{name}: weight {i} after step {step + 1}")
            ours = _flat_state(states[i])
            theirs = [ARRAYS[k] for k in sorted((k for k in ARRAYS.files if k.startswith(f"{name}/s{step}_{i}_")),
                                                key=lambda k: int(k.rsplit("_", 1)[1]))]
            assert len(ours) == len(theirs), f"{name}: parameter {i} has {len(ours)} state arrays, MXNet {len(theirs)}"
            for j, (a, b) in enumerate(zip(ours, theirs)):
                assert a.dtype == b.dtype, f"{name}: state {i}.{j} is {a.dtype}, MXNet's {b.dtype}"
                np.testing.assert_allclose(a, b, **_tolerance(dtype), err_msg=f"{name}: state {i}.{j} after step {step + 1}")
    assert opt.num_update == case["num_update"]


def test_every_optimizer_of_mxnet_is_registered() -> None:
    names = {"sgd", "nag", "signum", "adam", "adagrad", "rmsprop", "adadelta", "ftrl", "adamax", "nadam", "ftml",
             "lars", "lamb", "sgld", "dcasgd", "lbsgd", "ccsgd", "test", "groupadagrad"}
    assert names <= set(mx.optimizer.Optimizer.opt_registry)
    assert {c["optimizer"] for c in RECORD["cases"].values()} >= names - {"ccsgd", "test"}
