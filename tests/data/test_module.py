"""The Module API trains as MXNet 1.9.1 does: the same program (module_program.py) gives MXNet's
per-batch metrics, epoch parameters, log lines (Speedometer, epoch summaries, checkpoints), score,
predictions, gradients and updates; checkpoints are MXNet's files both ways."""
import re

import numpy as np
import pytest

import hybridize.runtime as mx
import module_program
from recorded import RECORDED, fixture

REC = RECORDED["module"]


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    return module_program.run(mx, str(tmp_path_factory.mktemp("module")))


def _close(a, b, tol=2e-5):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=tol, atol=tol)


def test_fit_gives_mxnets_batch_metrics_and_epoch_parameters(ours):
    assert [m[:3] for m in ours["batch_metrics"]] == [m[:3] for m in REC["batch_metrics"]]
    _close([m[3] for m in ours["batch_metrics"]], [m[3] for m in REC["batch_metrics"]])
    assert len(ours["epoch_params"]) == 3
    for got, want in zip(ours["epoch_params"], REC["epoch_params"]):
        assert sorted(got) == sorted(want)
        for k in want:
            _close(got[k], want[k])


def _shape_of_log(lines):
    lines = [re.sub(r"Speed: [0-9.]+ samples/sec", "Speed: S samples/sec", x) for x in lines]
    lines = [re.sub(r"Time cost=[0-9.]+", "Time cost=T", x) for x in lines]
    return [re.sub(r'checkpoint to ".*/', 'checkpoint to "DIR/', x) for x in lines]


def test_fit_logs_what_mxnet_logs(ours):
    assert _shape_of_log(ours["log"]) == _shape_of_log(REC["log"])
    assert "Epoch[0] Batch [0-2]\tSpeed: S samples/sec\taccuracy=0.291667" in _shape_of_log(ours["log"])


def test_score_predict_gradients_and_update_equal_mxnet(ours):
    assert [s[0] for s in ours["score"]] == [s[0] for s in REC["score"]]
    _close([s[1] for s in ours["score"]], [s[1] for s in REC["score"]])
    _close(ours["predict"], REC["predict"])
    for k in REC["grads"]:
        _close(ours["grads"][k], REC["grads"][k])
    for k in REC["after_update"]:
        _close(ours["after_update"][k], REC["after_update"][k])


def test_checkpoints_round_trip_with_mxnet_files(ours, tmp_path):
    assert ours["checkpoint"] == REC["checkpoint"]
    sym, args, aux = mx.model.load_checkpoint(fixture("mx_mlp"), 2)
    assert sym.list_arguments() == ["data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias", "softmax_label"]
    for k in args:
        _close(args[k].asnumpy(), REC["epoch_params"][1][k])
    mx.model.save_checkpoint(str(tmp_path / "again"), 2, sym, args, aux)
    assert (tmp_path / "again-0002.params").read_bytes() == open(fixture("mx_mlp-0002.params"), "rb").read()


def test_set_params_then_predict_and_bind_errors():
    sym, args, aux = mx.model.load_checkpoint(fixture("mx_mlp"), 2)
    mod = mx.mod.Module(sym, context=mx.cpu())
    with pytest.raises(AssertionError):
        mod.get_params()  # not bound / initialized, as MXNet
    mod.bind(data_shapes=[("data", (4, 6))], for_training=False)
    mod.set_params(args, aux)
    x = np.random.RandomState(1).rand(36, 6).astype(np.float32)[:4]
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    _close(mod.get_outputs()[0].asnumpy(), mx.nd.softmax(mx.nd.FullyConnected(
        mx.nd.relu(mx.nd.FullyConnected(mx.nd.array(x), args["fc1_weight"], args["fc1_bias"], num_hidden=8)),
        args["fc2_weight"], args["fc2_bias"], num_hidden=3)).asnumpy())


def test_monitor_sees_every_forward_and_backward_output_of_a_training_step():
    x = mx.sym.var("data")
    net = mx.sym.LinearRegressionOutput(mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=2, name="fc"),
                                                          act_type="sigmoid", name="act"), name="out")
    mon = mx.mon.Monitor(1, pattern=".*", sort=True)
    mod = mx.mod.Module(net, label_names=["out_label"])
    it = mx.io.NDArrayIter(np.ones((1, 2), np.float32), np.ones((1, 2), np.float32), batch_size=1,
                           label_name="out_label")
    mod.bind(it.provide_data, it.provide_label)
    mod.install_monitor(mon)
    mod.init_params()
    mon.tic()
    mod.forward_backward(next(iter(it)))
    names = [name for _, name, _ in mon.toc()]
    assert names == sorted(["act_output", "data", "fc_bias", "fc_output", "fc_weight", "out_label", "out_output",
                            "out_backward_output0", "out_backward_output1", "act_backward_output",
                            "fc_backward_output0", "fc_backward_output1", "fc_backward_output2"])
