"""Records MXNet 1.9.1's optimizer trajectories and learning-rate schedules for tests/training/.

Run with the MXNet venv (mxnet==1.9.1, numpy<1.24), from the repository root:

    /tmp/mxnet-venv/bin/python tools/record_training_fixtures.py

Writes ``tests/training/fixtures/optimizers.json`` (the cases: optimizer, constructor arguments, dtype,
how the update is called) and ``optimizers.npz`` (per case: the initial weights ``<case>/w<i>``, the
gradient of every step ``<case>/g<step>_<i>``, and after every step the weights ``<case>/w<step>_<i>`` and
the flattened optimizer states ``<case>/s<step>_<i>_<j>``), ``trainers.json``/``trainers.npz`` (``gluon.Trainer``
runs: step, allreduce_grads + update, set_learning_rate, KVStore instances; see :func:`record_trainers`),
and ``schedulers.json`` (each scheduler's
learning rate for num_update 0..N, asked in increasing order as an optimizer does).

The update is called as ``gluon.Trainer`` calls it: one ``Updater`` call with both parameters
(``mode: updater``; MXNet's SGD, LARS and LAMB then take their aggregated ``multi_*`` operators), or
``optimizer.update_multi_precision`` per parameter (``mode: direct``; SGD's ``sgd_update`` path).
SGLD's Gaussian noise is replaced by zeros (the runtime's random stream is not MXNet's), here and in
the test, so the deterministic part of its update is what is compared.
"""
import json
import os
import sys
import types

import mxnet as mx
import numpy as np

STEPS = 5
HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "training", "fixtures")

# name: (optimizer, kwargs, dtype, mode, extras)
#   extras: lr_mult/wd_mult given through param_dict ("param_dict"), set_lr_mult/set_wd_mult by index
#   ("set_mult"), an lr_scheduler ("scheduler": [class, kwargs]), 2-D shapes only ("2d")
CASES = {
    "sgd_plain": ("sgd", {"learning_rate": 0.1}, "float32", "updater", {}),
    "sgd_momentum": ("sgd", {"learning_rate": 0.1, "momentum": 0.9}, "float32", "updater", {}),
    "sgd_wd_clip_rescale": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.1, "clip_gradient": 0.5,
                                    "rescale_grad": 0.5}, "float32", "updater", {}),
    "sgd_param_dict_mult": ("sgd", {"learning_rate": 0.1, "momentum": 0.5, "wd": 0.05}, "float32", "updater",
                            {"param_dict": [[0.5, 2.0], [2.0, 0.0]]}),
    "sgd_set_mult": ("sgd", {"learning_rate": 0.1, "wd": 0.05}, "float32", "updater",
                     {"set_mult": [{"0": 0.25}, {"1": 3.0}]}),
    "sgd_mp_momentum": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01, "multi_precision": True},
                        "float16", "updater", {}),
    "sgd_mp_plain": ("sgd", {"learning_rate": 0.1, "clip_gradient": 1.0, "multi_precision": True}, "float16",
                     "updater", {}),
    "sgd_direct_momentum": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}, "float32", "direct", {}),
    "sgd_direct_clip": ("sgd", {"learning_rate": 0.1, "wd": 0.02, "clip_gradient": 0.3, "rescale_grad": 2.0},
                        "float32", "direct", {}),
    "sgd_direct_mp": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "multi_precision": True}, "float16",
                      "direct", {}),
    "sgd_scheduler": ("sgd", {"momentum": 0.9}, "float32", "updater",
                      {"scheduler": ["FactorScheduler", {"step": 2, "factor": 0.5, "base_lr": 0.2}]}),
    "sgd_begin_num_update": ("sgd", {"begin_num_update": 3}, "float32", "updater",
                             {"scheduler": ["MultiFactorScheduler", {"step": [4, 6], "factor": 0.1, "base_lr": 0.3}]}),
    "nag_momentum": ("nag", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}, "float32", "updater", {}),
    "nag_plain_clip": ("nag", {"learning_rate": 0.1, "clip_gradient": 0.4}, "float32", "updater", {}),
    "nag_mp": ("nag", {"learning_rate": 0.1, "momentum": 0.9, "multi_precision": True}, "float16", "updater", {}),
    "signum": ("signum", {"learning_rate": 0.01, "wd": 0.01, "wd_lh": 0.02}, "float32", "updater", {}),
    "signsgd": ("signum", {"learning_rate": 0.01, "momentum": 0.0, "wd": 0.1}, "float32", "updater", {}),
    "adam": ("adam", {"learning_rate": 0.01}, "float32", "updater", {}),
    "adam_wd_clip_rescale": ("adam", {"learning_rate": 0.01, "wd": 0.1, "clip_gradient": 0.5, "rescale_grad": 0.25},
                             "float32", "updater", {}),
    "adam_mp": ("adam", {"learning_rate": 0.01, "multi_precision": True}, "float16", "updater", {}),
    "adam_param_dict_mult": ("adam", {"learning_rate": 0.01, "wd": 0.1}, "float32", "updater",
                             {"param_dict": [[3.0, 1.0], [0.5, 0.0]]}),
    "adagrad": ("adagrad", {"learning_rate": 0.1, "wd": 0.01, "clip_gradient": 1.0}, "float32", "updater", {}),
    "rmsprop": ("rmsprop", {"learning_rate": 0.01, "wd": 0.01}, "float32", "updater", {}),
    "rmsprop_centered": ("rmsprop", {"learning_rate": 0.01, "centered": True, "clip_weights": 0.8,
                                     "clip_gradient": 1.0}, "float32", "updater", {}),
    "adadelta": ("adadelta", {"wd": 0.01, "clip_gradient": 1.0, "rescale_grad": 0.5}, "float32", "updater", {}),
    "ftrl": ("ftrl", {}, "float32", "updater", {}),
    "ftrl_wd_clip": ("ftrl", {"learning_rate": 0.2, "lamda1": 0.05, "wd": 0.1, "clip_gradient": 0.5}, "float32",
                     "updater", {}),
    "adamax": ("adamax", {"wd": 0.01, "clip_gradient": 1.0}, "float32", "updater", {}),
    "nadam": ("nadam", {"learning_rate": 0.01, "wd": 0.01, "clip_gradient": 1.0}, "float32", "updater", {}),
    "ftml": ("ftml", {"learning_rate": 0.01}, "float32", "updater", {}),
    "ftml_wd_clip": ("ftml", {"learning_rate": 0.01, "wd": 0.1, "clip_gradient": 0.5, "rescale_grad": 0.5},
                     "float32", "updater", {}),
    "lars_momentum": ("lars", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01, "eta": 0.01,
                               "param_idx2name": {0: "fc_weight", 1: "fc_bias"}}, "float32", "updater", {}),
    "lars_plain": ("lars", {"learning_rate": 0.1, "eta": 0.1, "eps": 1e-3}, "float32", "updater", {}),
    "lamb": ("lamb", {"learning_rate": 0.01}, "float32", "updater", {}),
    "lamb_bounds_wd": ("lamb", {"learning_rate": 0.01, "wd": 0.1, "lower_bound": 0.5, "upper_bound": 2.0,
                                "clip_gradient": 0.5}, "float32", "updater", {}),
    "lamb_no_bias_correction": ("lamb", {"learning_rate": 0.01, "bias_correction": False}, "float32", "updater", {}),
    "lamb_mp": ("lamb", {"learning_rate": 0.01, "multi_precision": True}, "float16", "updater", {}),
    "lamb_direct": ("lamb", {"learning_rate": 0.01, "wd": 0.01}, "float32", "direct", {}),
    "sgld_no_noise": ("sgld", {"learning_rate": 0.01, "wd": 0.1, "clip_gradient": 0.5}, "float32", "updater", {}),
    "dcasgd": ("dcasgd", {"learning_rate": 0.1, "wd": 0.01, "lamda": 0.1}, "float32", "updater", {}),
    "lbsgd": ("lbsgd", {"learning_rate": 0.1, "momentum": 0.9, "warmup_epochs": 1, "updates_per_epoch": 4,
                        "batch_scale": 2}, "float32", "updater", {}),
    "lbsgd_lars": ("lbsgd", {"learning_rate": 0.1, "warmup_strategy": "lars", "wd": 0.01}, "float32", "updater", {}),
    "group_adagrad": ("groupadagrad", {"learning_rate": 0.1, "clip_gradient": 1.0}, "float32", "updater", {"2d": True}),
}

SCHEDULERS = {
    "factor": ("FactorScheduler", {"step": 3, "factor": 0.5, "base_lr": 0.1}),
    "factor_stop_warmup_linear": ("FactorScheduler", {"step": 2, "factor": 0.3, "stop_factor_lr": 1e-3,
                                                      "base_lr": 0.1, "warmup_steps": 4, "warmup_begin_lr": 0.01}),
    "multifactor": ("MultiFactorScheduler", {"step": [3, 7, 12], "factor": 0.5, "base_lr": 1.0}),
    "multifactor_warmup_constant": ("MultiFactorScheduler", {"step": [6, 9], "factor": 0.1, "base_lr": 0.5,
                                                             "warmup_steps": 5, "warmup_begin_lr": 0.05,
                                                             "warmup_mode": "constant"}),
    "poly": ("PolyScheduler", {"max_update": 20, "base_lr": 0.1, "pwr": 2}),
    "poly_final_warmup": ("PolyScheduler", {"max_update": 20, "base_lr": 0.1, "pwr": 3, "final_lr": 0.01,
                                            "warmup_steps": 5, "warmup_begin_lr": 0.001}),
    "cosine": ("CosineScheduler", {"max_update": 20, "base_lr": 0.1}),
    "cosine_final_warmup": ("CosineScheduler", {"max_update": 25, "base_lr": 0.2, "final_lr": 0.02,
                                                "warmup_steps": 6, "warmup_begin_lr": 0.0}),
}


def flat_state(state):
    if state is None:
        return []
    if isinstance(state, mx.nd.NDArray):
        return [state.asnumpy()]
    return [a for s in state for a in flat_state(s)]


def make_optimizer(name, kwargs, extras):
    kwargs = dict(kwargs)
    if "scheduler" in extras:
        cls, skw = extras["scheduler"]
        kwargs["lr_scheduler"] = getattr(mx.lr_scheduler, cls)(**skw)
    if "param_dict" in extras:
        kwargs["param_dict"] = {i: types.SimpleNamespace(lr_mult=lm, wd_mult=wm)
                                for i, (lm, wm) in enumerate(extras["param_dict"])}
    opt = mx.optimizer.create(name, **kwargs)
    if "set_mult" in extras:
        opt.set_lr_mult({int(k): v for k, v in extras["set_mult"][0].items()})
        opt.set_wd_mult({int(k): v for k, v in extras["set_mult"][1].items()})
    return opt


def record_case(case, spec, rng, arrays):
    name, kwargs, dtype, mode, extras = spec
    shapes = [(3, 4), (5, 2)] if extras.get("2d") else [(3, 4), (5,)]
    weights = [mx.nd.array(rng.uniform(-1, 1, s), dtype=dtype) for s in shapes]
    for i, w in enumerate(weights):
        arrays[f"{case}/w{i}"] = w.asnumpy()
    opt = make_optimizer(name, kwargs, extras)
    updater = mx.optimizer.get_updater(opt)
    states = {}
    for step in range(STEPS):
        grads = [mx.nd.array(rng.normal(0, 1, s), dtype=dtype) for s in shapes]
        for i, g in enumerate(grads):
            arrays[f"{case}/g{step}_{i}"] = g.asnumpy()
        if mode == "updater":
            updater([0, 1], grads, weights)
            states = updater.states
        else:
            for i, (w, g) in enumerate(zip(weights, grads)):
                if i not in states:
                    states[i] = opt.create_state_multi_precision(i, w)
                opt.update_multi_precision(i, w, g, states[i])
        for i, w in enumerate(weights):
            arrays[f"{case}/w{step}_{i}"] = w.asnumpy()
            for j, s in enumerate(flat_state(states[i])):
                arrays[f"{case}/s{step}_{i}_{j}"] = s
    return {"optimizer": name, "kwargs": {k: v for k, v in kwargs.items() if k != "param_idx2name"},
            "param_idx2name": {str(k): v for k, v in kwargs.get("param_idx2name", {}).items()},
            "dtype": dtype, "mode": mode, "extras": extras, "shapes": [list(s) for s in shapes],
            "num_update": opt.num_update}


# Trainer runs: (optimizer, optimizer_params, kvstore, update_on_kvstore, call, set_learning_rate at step)
#   call "step": trainer.step(batch_size); "split": allreduce_grads() then update(batch_size)
TRAINERS = {
    "sgd_step": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01}, "device", None, "step", 3),
    "adam_kv_on_store": ("adam", {"learning_rate": 0.01, "wd": 0.01}, "local_instance", None, "step", None),
    "sgd_kv_split": ("sgd", {"learning_rate": 0.1, "momentum": 0.5}, "local_instance", False, "split", 2),
    "nag_no_kv_split": ("nag", {"learning_rate": 0.1, "momentum": 0.9}, None, None, "split", None),
}


def record_trainers(rng):
    """Parameters ``w`` (3, 4) and ``b`` (4,) with ``b.lr_mult = 2``, ``b.wd_mult = 0``; gradients set
    directly and marked fresh as backward does; batch size 4."""
    arrays, cases = {}, {}
    for case, (name, oparams, kv, uok, call, set_lr_at) in TRAINERS.items():
        w = mx.gluon.Parameter("w", shape=(3, 4))
        b = mx.gluon.Parameter("b", shape=(4,), lr_mult=2.0, wd_mult=0.0)
        for p in (w, b):
            p.initialize(ctx=mx.cpu())
            p.set_data(mx.nd.array(rng.uniform(-1, 1, p.shape)))
            arrays[f"{case}/init_{p.name}"] = p.data().asnumpy()
        store = mx.kv.create("local") if kv == "local_instance" else kv
        trainer = mx.gluon.Trainer({"w": w, "b": b}, name, oparams, kvstore=store, update_on_kvstore=uok)
        lrs = []
        for step in range(STEPS):
            if set_lr_at is not None and step == set_lr_at:
                trainer.set_learning_rate(trainer.learning_rate * 0.5)
            for p in (w, b):
                g = rng.normal(0, 1, p.shape).astype("float32")
                arrays[f"{case}/g{step}_{p.name}"] = g
                p.grad()[:] = g
                p.data()._fresh_grad = True
            if call == "step":
                trainer.step(4)
            else:
                trainer.allreduce_grads()
                trainer.update(4)
            lrs.append(trainer.learning_rate)
            for p in (w, b):
                arrays[f"{case}/w{step}_{p.name}"] = p.data().asnumpy()
        cases[case] = {"optimizer": name, "optimizer_params": oparams, "kvstore": kv, "update_on_kvstore": uok,
                       "call": call, "set_learning_rate_at": set_lr_at, "learning_rates": lrs,
                       "kvstore_made": trainer._kvstore is not None,
                       "updated_on_kvstore": bool(trainer._update_on_kvstore)}
    np.savez_compressed(os.path.join(HERE, "trainers.npz"), **arrays)
    with open(os.path.join(HERE, "trainers.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "steps": STEPS, "cases": cases}, f, indent=1, sort_keys=True)


def main():
    assert mx.__version__ == "1.9.1", mx.__version__
    # SGLD's noise: zeros (see the module docstring)
    mx.optimizer.optimizer.normal = lambda loc, scale, shape, dtype, ctx: mx.nd.zeros(shape, ctx, dtype=dtype)
    rng = np.random.RandomState(20261127)
    arrays, cases = {}, {}
    for case, spec in CASES.items():
        cases[case] = record_case(case, spec, rng, arrays)
    np.savez_compressed(os.path.join(HERE, "optimizers.npz"), **arrays)
    with open(os.path.join(HERE, "optimizers.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "steps": STEPS, "cases": cases}, f, indent=1, sort_keys=True)
    scheds = {}
    for case, (cls, kw) in SCHEDULERS.items():
        sched = getattr(mx.lr_scheduler, cls)(**kw)
        scheds[case] = {"class": cls, "kwargs": kw, "lr": [sched(n) for n in range(31)]}
    with open(os.path.join(HERE, "schedulers.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "schedulers": scheds}, f, indent=1, sort_keys=True)
    record_trainers(np.random.RandomState(7))
    record_mxnet_states_file()
    print(f"{len(cases)} optimizer cases, {len(scheds)} schedulers -> {HERE}", file=sys.stderr)



def record_mxnet_states_file():
    """``mxnet_adam.states``: what MXNet's ``Trainer.save_states`` writes (a pickle of the Adam updater's
    states and the optimizer) after 2 steps on the ``trainers`` parameters, and the states it holds
    (``mxnet_adam_states.npz``), for the opt-in pickle loading test."""
    rng = np.random.RandomState(5)
    w = mx.gluon.Parameter("w", shape=(3, 4))
    b = mx.gluon.Parameter("b", shape=(4,))
    for p in (w, b):
        p.initialize(ctx=mx.cpu())
    trainer = mx.gluon.Trainer([w, b], "adam", {"learning_rate": 0.01, "wd": 0.01,
                                                "lr_scheduler": mx.lr_scheduler.FactorScheduler(1, 0.9, base_lr=0.01)})
    for _ in range(2):
        for p in (w, b):
            p.grad()[:] = rng.normal(0, 1, p.shape)
            p.data()._fresh_grad = True
        trainer.step(1)
    trainer.save_states(os.path.join(HERE, "mxnet_adam.states"))
    states = trainer._updaters[0].states
    np.savez(os.path.join(HERE, "mxnet_adam_states.npz"),
             **{f"{i}_{j}": s.asnumpy() for i, st in states.items() for j, s in enumerate(st)})


if __name__ == "__main__":
    main()
