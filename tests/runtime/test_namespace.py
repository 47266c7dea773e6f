"""``hybridize.runtime`` is shaped like ``mxnet``: what exists loads lazily, what does not is absent."""
import pytest

import hybridize.runtime as mx


def test_lazy_submodules_load_on_first_use() -> None:
    assert mx.gluon.__name__ == "hybridize.runtime.gluon"
    assert mx.init is mx.initializer
    assert mx.nd is mx.ndarray and mx.sym is mx.symbol
    assert mx.kv is mx.kvstore and mx.optimizer.SGD and mx.lr_scheduler.FactorScheduler
    assert mx.io.NDArrayIter and mx.metric.Accuracy and mx.recordio.MXRecordIO and mx.img is mx.image


@pytest.mark.parametrize("name", ["rtc", "kvstore_server"])
def test_modules_we_do_not_have_are_attribute_errors(name: str) -> None:
    assert not hasattr(mx, name)
    with pytest.raises(AttributeError, match=name):
        getattr(mx, name)


def test_symbols_of_namespaced_ops_are_named_after_their_public_name() -> None:
    """As MXNet: ``sym.contrib.box_nms`` makes ``box_nms0``, and its JSON counts the hidden output."""
    import json

    with mx.name.NameManager():
        assert mx.sym.contrib.box_nms(mx.sym.var("x")).name == "box_nms0"
        assert mx.sym.random.uniform(shape=(2,)).name == "uniform0"
        assert json.loads(mx.sym.contrib.box_nms(mx.sym.var("x")).tojson())["node_row_ptr"] == [0, 1, 3]


def test_mxnet_ndarray_and_symbol_submodules_are_there() -> None:
    """MXNet's classes live in ``mxnet.ndarray.ndarray`` and ``mxnet.symbol.symbol``, and code names
    them that way (MXFusion 0.3.1: ``mxnet.ndarray.ndarray.NDArray`` in 27 annotations and
    ``isinstance`` checks); transpiled, these are ``hybridize.runtime.ndarray.ndarray`` etc., so they
    resolve (HY012 does not report them) and import."""
    from hybridize.runtime.ndarray.ndarray import NDArray
    from hybridize.runtime.symbol.symbol import Symbol, var

    assert NDArray is mx.nd.NDArray and mx.nd.ndarray.NDArray is NDArray
    assert Symbol is mx.sym.Symbol and mx.symbol.symbol.Symbol is Symbol and var is mx.sym.var
    assert isinstance(mx.nd.ndarray.zeros((2,)), mx.nd.ndarray.NDArray)
