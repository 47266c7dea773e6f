"""Fast, layout-specialized kernels of the compiled executor (internal ops, never registered).

The compiler's lowering passes replace reference ops (NCHW, MXNet semantics, in
``runtime/ops``) by the internal ops defined in :mod:`.nhwc` and :mod:`.conv`. Each internal op is an
:class:`OpDef` that is *not* put in the registry (so ``nd``/``sym`` and symbol JSON never see
it); its ``compute`` is a numpy implementation the reference interpreter can run (tests run
lowered graphs through it). The code that calls them from a compiled program is their emitter
(``graph/emit/``).
"""
from __future__ import annotations

__all__ = ["blas_threads"]


def blas_threads(n: int) -> bool:
    """Sets the number of threads numpy's OpenBLAS uses (process-wide); False if unknown."""
    import ctypes

    from .parallel import _blas_functions
    setter, _ = _blas_functions()
    if setter is None:
        return False
    setter(ctypes.c_int(int(n)))
    return True


from . import conv, nhwc  # noqa: E402,F401  (define the internal ops)
