"""The hybridize runtime: MXNet's operators, NDArray/Symbol and Gluon on numpy.

Shaped like the ``mxnet`` package so that transpiled code maps one to one:
``import hybridize.runtime as mx``; ``mx.nd``, ``mx.sym``, ``mx.gluon``, ``mx.cpu()``, ...
"""
from . import autograd, base, context, name  # noqa: F401
from . import ndarray, symbol  # noqa: F401
from . import _autograd_engine
from .attribute import AttrScope  # noqa: F401
from .base import MXNetError  # noqa: F401
from .context import Context, cpu, cpu_pinned, current_context, gpu, num_gpus  # noqa: F401

nd = ndarray
sym = symbol
random = ndarray.random  # type: ignore[attr-defined]  # mx.random: seed, uniform, normal, randint, ...
_autograd_engine.install(autograd, ndarray)  # the tape's backward pass (gradient rules with F = nd)
__version__ = "1.9.1"  # the MXNet version whose semantics this runtime follows


_UTIL_NAMES = ("is_np_shape", "set_np_shape", "np_shape", "use_np_shape", "is_np_array", "np_array",
               "use_np_array", "use_np", "set_np", "reset_np")


def __getattr__(attr: str):
    # gluon, init, initializer and friends load on first use (they are heavier)
    import importlib
    lazy = {"gluon": ".gluon", "init": ".initializer", "initializer": ".initializer", "util": ".util",
            "contrib": ".contrib", "operator": ".operator", "onnx": ".onnx",
            "test_utils": ".test_utils", "executor": ".executor", "runtime": ".runtime",
            "viz": ".visualization", "visualization": ".visualization",
            "optimizer": ".optimizer", "lr_scheduler": ".lr_scheduler", "kv": ".kvstore", "kvstore": ".kvstore",
            "np": ".numpy", "numpy": ".numpy", "npx": ".numpy_extension", "numpy_extension": ".numpy_extension",
            "io": ".io", "rnn": ".rnn", "metric": ".metric", "recordio": ".recordio", "registry": ".registry",
            "image": ".image", "img": ".image", "callback": ".callback", "model": ".model",
            "mod": ".module", "module": ".module", "mon": ".monitor", "monitor": ".monitor", "engine": ".engine"}
    if attr in _UTIL_NAMES:  # mx.use_np_shape, mx.np_shape, ... (MXNet re-exports them from mxnet.util)
        from . import util
        return getattr(util, attr)
    if attr in lazy:
        mod = importlib.import_module(lazy[attr], __name__)
        globals()[attr] = mod
        return mod
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
