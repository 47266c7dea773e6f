"""Whole compiled programs: concurrent calls from several threads, and the memory plan."""
import threading

import numpy as np

from support import require_shared
from model_support import model_dir, recipe_params

from hybridize.runtime.graph import mxnet_json
from hybridize.runtime.graph.codegen import compile_graph


def _compiled(name, shape):
    require_shared()
    g = mxnet_json.load(model_dir(name) / "model-symbol.json")
    params = recipe_params(name)
    inputs = [n.name for n in g.variables() if n.name not in params]
    return compile_graph(g, input_names=inputs, shapes={inputs[0]: shape}, params=params)


def test_four_threads_on_one_resnet18_agree_with_serial_calls():
    prog = _compiled("resnet18_v1", (1, 3, 96, 96))
    xs = [np.random.default_rng(i).standard_normal((1, 3, 96, 96)).astype(np.float32) for i in range(4)]
    serial = [prog(x)[0] for x in xs]
    assert not any(np.array_equal(serial[0], s) for s in serial[1:])
    results: dict = {}
    errors: list = []
    start = threading.Barrier(4)

    def work(t):
        try:
            start.wait()
            for rep in range(3):
                for i in range(4):
                    k = (t + i) % 4          # threads run different inputs at the same moment
                    results[(t, rep, k)] = prog(xs[k])[0]
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert len(results) == 48
    for (t, rep, k), y in results.items():
        np.testing.assert_array_equal(y, serial[k])


def test_resnet50_memory_plan_near_liveness_bound():
    prog = _compiled("resnet50_v1", (1, 3, 224, 224))
    mem = prog.stats["memory"]
    print(f"resnet50_v1 batch 1: peak activation {mem['peak_bytes'] / 2**20:.1f} MiB, "
          f"liveness lower bound {mem['lower_bound_bytes'] / 2**20:.1f} MiB, "
          f"without reuse {mem['unshared_bytes'] / 2**20:.1f} MiB")
    assert mem["lower_bound_bytes"] <= mem["peak_bytes"] <= 1.2 * mem["lower_bound_bytes"]
    assert mem["peak_bytes"] < mem["unshared_bytes"] / 4
