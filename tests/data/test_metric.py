"""mx.metric computes MXNet 1.9.1's values: every metric, local and global statistics, composites."""
import hybridize.runtime as mx
import numpy as np
import pytest
from recorded import RECORDED

CASES = RECORDED["metrics"]["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['name']}-{i}" for i, c in enumerate(CASES)])
def test_metric_values_equal_mxnet(case):
    m = mx.metric.create(case["name"], **case["kwargs"])
    labels = None if case["labels"] is None else [mx.nd.array(np.array(x, dtype=np.float32)) for x in case["labels"]]
    preds = [mx.nd.array(np.array(x, dtype=np.float32)) for x in case["preds"]]
    m.update(labels, preds)
    first = m.get_global()
    m.reset_local()
    m.update(labels, preds)
    name, value = m.get()
    gname, gvalue = m.get_global()
    assert name == case["get"][0] and gname == case["global"][0]
    np.testing.assert_allclose(float(value), case["get"][1], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(float(gvalue), case["global"][1], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(float(first[1]), case["first"][1], rtol=1e-5, atol=1e-7)


def test_composite_metric_reports_each_child():
    rec = RECORDED["metrics"]
    comp = mx.metric.create(["acc", "ce"])
    comp.update([mx.nd.array(rec["cls"])], [mx.nd.array(rec["probs"])])
    names, values = comp.get()
    assert names == rec["composite"][0]
    np.testing.assert_allclose(values, rec["composite"][1], rtol=1e-6)


def test_custom_metric_from_numpy_function_averages_over_updates():
    rec = RECORDED["metrics"]
    custom = mx.metric.np(lambda label, pred: float(np.abs(label - pred.argmax(1)).sum()), name="absdiff")
    for _ in range(2):
        custom.update([mx.nd.array(rec["cls"])], [mx.nd.array(rec["probs"])])
    assert custom.get()[0] == rec["custom"][0]
    np.testing.assert_allclose(custom.get()[1], rec["custom"][1])


def test_aliases_and_config_round_trip():
    assert isinstance(mx.metric.create("acc"), mx.metric.Accuracy)
    assert isinstance(mx.metric.create("top_k_acc", top_k=3), mx.metric.TopKAccuracy)
    assert isinstance(mx.metric.create("torch"), mx.metric.Torch)
    acc = mx.metric.Accuracy(axis=1, name="a")
    again = mx.metric.create(acc.get_config()["metric"], **{k: v for k, v in acc.get_config().items() if k != "metric"})
    assert again.get_config() == acc.get_config()


def test_mismatched_label_and_prediction_counts_are_refused():
    with pytest.raises(ValueError, match="Shape of labels 2 does not match shape of predictions 1"):
        mx.metric.Accuracy().update([mx.nd.array([0]), mx.nd.array([1])], [mx.nd.array([[1, 0]])])
