"""``hybridize.runtime`` is shaped like ``mxnet``: what exists loads lazily, what does not is absent."""
import pytest

import hybridize.runtime as mx


def test_lazy_submodules_load_on_first_use() -> None:
    assert mx.gluon.__name__ == "hybridize.runtime.gluon"
    assert mx.init is mx.initializer
    assert mx.nd is mx.ndarray and mx.sym is mx.symbol


@pytest.mark.parametrize("name", ["io", "metric", "test_utils", "kvstore"])
def test_modules_we_do_not_have_are_attribute_errors(name: str) -> None:
    assert not hasattr(mx, name)
    with pytest.raises(AttributeError, match=name):
        getattr(mx, name)
