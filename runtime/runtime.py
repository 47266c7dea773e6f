"""``mxnet.runtime``: the build features MXNet reports (``Features().is_enabled('CUDA')``).

The names are MXNet 1.9.1's; what is enabled describes this runtime: a numpy CPU implementation
with LAPACK (numpy.linalg) and the profiler-free, signal-free, single-device feature set.
"""
from __future__ import annotations

import collections

__all__ = ["Feature", "Features", "feature_list"]

_NAMES = ["CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3", "CPU_SSE4_1",
          "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C", "JEMALLOC", "BLAS_OPEN",
          "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN", "OPENCV", "CAFFE", "PROFILER",
          "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE", "SIGNAL_HANDLER", "DEBUG", "TVM_OP"]
_ENABLED = {"LAPACK", "INT64_TENSOR_SIZE"}  # numpy.linalg; numpy indexes with int64


class Feature(collections.namedtuple("Feature", ["name", "enabled"])):
    """One compile-time feature and whether it is enabled."""

    def __repr__(self) -> str:
        return ("✔ " if self.enabled else "✖ ") + self.name


def feature_list() -> list[Feature]:
    return [Feature(n, n in _ENABLED) for n in _NAMES]


class Features(collections.OrderedDict):
    """Name -> :class:`Feature`, with ``is_enabled(name)``."""

    def __init__(self):
        super().__init__((f.name, f) for f in feature_list())

    def __repr__(self) -> str:
        return str(list(self.values()))

    def is_enabled(self, feature_name: str) -> bool:
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError(f"Feature '{name}' is unknown, known features are: {list(self.keys())}")
        return self[name].enabled
