"""Errors and small shared facts of the runtime (what ``mxnet.base`` provides to Gluon code).

Library code raises these typed errors and never prints; the command line turns them into one
line each (``hybridize: <file>: <problem>``) at its edge.
"""
from __future__ import annotations

import ctypes
import os

__all__ = ["MXNetError", "HybridizeError", "ShapeError", "InvalidGraphError", "LoadError", "UnknownOpError", "NoGradientError", "NotImplementedForSymbol", "OutOfMemoryError",
           "OperatorError", "OperatorArgumentError", "CustomOpError",
           "DataFileError", "DatasetFileNotFoundError", "DataLoaderWorkerError",
           "py_str", "data_dir",
           "numeric_types", "integer_types", "string_types"]

numeric_types = (float, int)
integer_types = (int,)
string_types = (str,)


class HybridizeError(RuntimeError):
    """Base class of every error the runtime raises on purpose.

    It is ``mxnet.base.MXNetError`` too (a RuntimeError, as MXNet's): ``except MXNetError`` catches
    what MXNet would raise one for, and the typed subclasses below let the runtime's own code (and
    the command line, which prints them as one line) tell the cases apart. Several also derive from
    the builtin exception that describes them (``ShapeError`` is a ValueError, ``UnknownOpError`` a
    KeyError), so ``except ValueError`` keeps working where it did."""


# Gluon code catches ``mxnet.base.MXNetError``; keep that spelling working.
MXNetError = HybridizeError


class ShapeError(HybridizeError, ValueError):
    """Shapes that do not fit an operator, or an input of the wrong shape."""


class NoGradientError(HybridizeError, NotImplementedError):
    """Something that needs gradients (``Executor.backward``, gradient checks): the runtime is forward only."""


class NonDifferentiableError(HybridizeError):
    """A backward pass reached an operator MXNet registers without a gradient (no ``FGradient``)."""


class NotImplementedForSymbol(HybridizeError):
    """A function that exists for NDArray only, called on a Symbol (``mxnet.base.NotImplementedForSymbol``)."""

    def __init__(self, function, alias=None, *args):
        super().__init__()
        self.function = getattr(function, "__name__", str(function))
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self) -> str:
        msg = f"Function {self.function}"
        if self.alias:
            msg += f' (namely operator "{self.alias}")'
        if self.args:
            msg += " with arguments ({})".format(", ".join(self.args))
        return msg + " is not implemented for Symbol and only available in NDArray."


class OperatorError(HybridizeError, ValueError):
    """An operator refused its inputs (MXNet's CHECK failures inside an operator: shapes that do not
    fit, a zero block size, an index out of range ...). Names the operator and the input shapes."""


def operator_error(original: BaseException, message: str) -> "OperatorError":
    """An ``OperatorError`` for a kernel's failure, also an instance of the failure's builtin type
    where there is a subclass for it (an IndexError stays an IndexError, as MXNet's kernels raise
    IndexError for an index out of bounds: ``gather_nd``, ``take(mode='raise')``)."""
    for builtin, cls in _OPERATOR_ERRORS:
        if isinstance(original, builtin):
            return cls(message)
    return OperatorError(message)


class OperatorIndexError(OperatorError, IndexError):
    """An operator's IndexError (an index out of bounds)."""


class OperatorTypeError(OperatorError, TypeError):
    """An operator's TypeError (a dtype its kernel cannot take)."""


class OperatorZeroDivisionError(OperatorError, ZeroDivisionError):
    """An operator's division by zero (a zero size or block)."""


_OPERATOR_ERRORS = ((IndexError, OperatorIndexError), (TypeError, OperatorTypeError),
                    (ZeroDivisionError, OperatorZeroDivisionError))


class OperatorArgumentError(HybridizeError, TypeError):
    """A call's arguments do not fit the operator: an unknown or badly typed attribute, too many
    inputs (MXNet's parameter parser raises MXNetError for these)."""


class CustomOpError(HybridizeError):
    """An exception inside a Python ``CustomOp.forward``, re-raised as MXNet does (MXNetError); the
    original is chained as ``__cause__``."""


class UnknownOpError(HybridizeError, KeyError):
    """An operator name the registry does not know."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class InvalidGraphError(HybridizeError):
    """A compiler stage left a graph that breaks the IR's rules (a compiler bug; found by the
    verifier between stages, ``HYBRIDIZE_VERIFY=1``)."""


class OutOfMemoryError(HybridizeError, MemoryError):
    """Memory ran out computing one node of a graph: names the node and the bytes the allocation
    that failed asked for (a MemoryError too, so ``except MemoryError`` still catches it)."""

    @classmethod
    def at(cls, name: str, op: str, error: BaseException, when: str = "") -> "OutOfMemoryError":
        """The error for node ``name`` (operator ``op``) whose computation raised ``error``;
        ``when``: what the program was doing (e.g. "precomputing constants")."""
        shape, dtype, size = getattr(error, "shape", None), getattr(error, "dtype", None), \
            getattr(error, "_total_size", None)       # numpy's _ArrayMemoryError says what it asked for
        from ..messages import fmt_bytes, printable   # a leaf: imports nothing of the package
        where = f"out of memory at node {printable(repr(name))} ({op})" + (f" while {when}" if when else "")
        if isinstance(size, int):
            what = f"an array of shape {tuple(shape)} {dtype}" if shape is not None else "an array"
            return cls(f"{where}: it needed {fmt_bytes(size)} ({size} bytes) for {what}, "
                       "more than the memory this process may use")
        detail = str(error).strip()
        return cls(f"{where}: the size it needed was not reported" + (f" ({detail})" if detail else ""))


class LoadError(HybridizeError):
    """A symbol JSON or parameter file that cannot be read; names the file and the culprit."""

    def __init__(self, path: str | os.PathLike | None, problem: str):
        self.path = None if path is None else os.fspath(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}" if self.path else problem)


class DataFileError(LoadError):
    """A data file (RecordIO ``.rec``/``.idx``, a dataset's published file) that is missing or corrupt;
    names the file and what is wrong with it."""


class DatasetFileNotFoundError(DataFileError, FileNotFoundError):
    """A dataset's published file is not where it was expected; the runtime never downloads."""


class DataLoaderWorkerError(HybridizeError):
    """A ``DataLoader`` worker process raised, died (a signal), or did not answer within ``timeout``."""


class DistributedTrainingError(HybridizeError):
    """A data-parallel job (``kvstore='dist_sync'``) that cannot start or was stopped: a rank raised,
    its worker process died, or the store was used outside a job."""


NDArrayHandle = ctypes.c_void_p  # MXNet's C handle type of an NDArray (``NDArray.handle``)


def py_str(x: "bytes | str") -> str:
    """``bytes`` decoded as UTF-8 (``mxnet.base.py_str``); ``str`` unchanged."""
    return x.decode("utf-8") if isinstance(x, bytes) else x


def data_dir() -> str:
    """Where MXNet keeps downloaded data (``$MXNET_HOME`` or ``~/.mxnet``); nothing is downloaded here."""
    return os.getenv("MXNET_HOME", os.path.join(os.path.expanduser("~"), ".mxnet"))


def _as_list(obj):
    """``obj`` if it is a list or tuple, else ``[obj]`` (as ``mxnet.base._as_list``, used by gluon.rnn)."""
    if isinstance(obj, (list, tuple)):
        return obj
    return [obj]


mx_real_t = __import__("numpy").float32  # MXNet's default real type (gluon.block imports it)
