"""``mxnet.contrib.amp.amp``: the state model code reads, and the entry points, which refuse.

The runtime computes in the dtypes it is given (float32 stays float32); it has no float16 operator
rewriting, loss scaling or trainer. ``_amp_initialized`` is ``False`` as in a fresh MXNet process,
so code that branches on it (gluon-nlp's masked softmax picks -1e18 over -1e4) follows MXNet.
"""
from __future__ import annotations

from typing import Any

from ...base import HybridizeError

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "convert_model", "convert_symbol",
           "convert_hybrid_block", "convert_bucketing_module", "list_lp16_ops", "list_fp32_ops",
           "list_lp16_fp32_ops", "list_conditional_fp32_ops", "list_widest_type_cast",
           "list_loss_output_functions", "list_lp16_use_fp32_params"]

_amp_initialized = False
_amp_loss_scale_initialized = False
_loss_scaler = None


def _unsupported(what: str) -> HybridizeError:
    return HybridizeError(f"mxnet.contrib.amp.{what}: automatic mixed precision is not supported by the "
                          "hybridize runtime (it computes in the dtypes it is given; cast explicitly)")


def init(*args: Any, **kwargs: Any) -> None:
    raise _unsupported("init")


def init_trainer(*args: Any, **kwargs: Any) -> None:
    raise _unsupported("init_trainer")


def scale_loss(*args: Any, **kwargs: Any) -> Any:
    raise _unsupported("scale_loss")


def unscale(*args: Any, **kwargs: Any) -> None:
    raise _unsupported("unscale")


def convert_model(*args: Any, **kwargs: Any) -> Any:
    raise _unsupported("convert_model")


def convert_symbol(*args: Any, **kwargs: Any) -> Any:
    raise _unsupported("convert_symbol")


def convert_hybrid_block(*args: Any, **kwargs: Any) -> Any:
    raise _unsupported("convert_hybrid_block")


def convert_bucketing_module(*args: Any, **kwargs: Any) -> Any:
    raise _unsupported("convert_bucketing_module")


def _lister(name: str):
    def fn(target_dtype: Any) -> list:
        raise _unsupported(name)
    fn.__name__ = name
    return fn


list_lp16_ops = _lister("list_lp16_ops")
list_fp32_ops = _lister("list_fp32_ops")
list_lp16_fp32_ops = _lister("list_lp16_fp32_ops")
list_conditional_fp32_ops = _lister("list_conditional_fp32_ops")
list_widest_type_cast = _lister("list_widest_type_cast")
list_loss_output_functions = _lister("list_loss_output_functions")
list_lp16_use_fp32_params = _lister("list_lp16_use_fp32_params")
