"""Parallelization and small helpers, as ``mxnet.gluon.utils`` (ported from MXNet 1.9.1, Apache-2.0).

Nothing is downloaded here: ``download`` raises a clear error unless the file is already present
(with a matching SHA-1 when one is given).
"""
from __future__ import annotations

import collections
import hashlib
import os
import weakref
from typing import Any

import numpy as np

from .. import ndarray
from ..ops._util import known

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download", "replace_file",
           "HookHandle", "shape_is_known"]


def split_data(data: Any, num_slice: int, batch_axis: int = 0, even_split: bool = True) -> list:
    """Splits an NDArray into ``num_slice`` slices along ``batch_axis`` (a list even for 1 slice)."""
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            "data with shape %s cannot be evenly split into %d slices along axis %d. "
            "Use a batch size that's multiple of %d or set even_split=False to allow "
            "uneven partitioning of data." % (str(data.shape), num_slice, batch_axis, num_slice))
    n_each_section, extras = divmod(size, num_slice)
    section_sizes = [0] + (extras * [n_each_section + 1] + (num_slice - extras) * [n_each_section])
    div_points = np.array(section_sizes).cumsum()
    slices = []
    if batch_axis != 0:
        for i in range(num_slice):
            st, end = int(div_points[i]), int(div_points[i + 1])
            slices.append(ndarray.NDArray(np.ascontiguousarray(
                np.take(data._data, np.arange(st, end), axis=batch_axis))))
    else:
        slices = [data[int(div_points[i]):int(div_points[i + 1])] if i < num_slice - 1 else data[int(div_points[i]):size]
                  for i in range(num_slice)]
    return slices


def split_and_load(data: Any, ctx_list: list, batch_axis: int = 0, even_split: bool = True) -> list:
    """Splits ``data`` into one slice per context (everything stays on the CPU here)."""
    if not isinstance(data, ndarray.NDArray):
        data = ndarray.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [i.as_in_context(ctx) for i, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays: list, max_norm: float, check_isfinite: bool = True) -> Any:
    """Rescales NDArrays in place so that the 2-norm of them all is at most ``max_norm``."""
    assert len(arrays) > 0
    total_norm = float(np.sqrt(sum(float(np.sum(np.square(a._data.astype(np.float64)))) for a in arrays)))
    if check_isfinite and not np.isfinite(total_norm):
        import warnings
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."), stacklevel=2)
    scale = max_norm / (total_norm + 1e-8)
    if scale < 1.0:
        for a in arrays:
            a._data *= a._data.dtype.type(scale)
    return total_norm if check_isfinite else ndarray.array([total_norm])


def _indent(s_: str, numSpaces: int) -> str:  # noqa: N803 (MXNet's spelling)
    """Indents every line of ``s_`` but the first by ``numSpaces``."""
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [first] + [(numSpaces * " ") + line for line in s]
    return "\n".join(s)


def check_sha1(filename: str, sha1_hash: str) -> bool:
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        while True:
            data = f.read(1048576)
            if not data:
                break
            sha1.update(data)
    return sha1.hexdigest() == sha1_hash


def replace_file(src: str, dst: str) -> None:
    os.replace(src, dst)


def download(url: str, path: str | None = None, overwrite: bool = False, sha1_hash: str | None = None,
             retries: int = 5, verify_ssl: bool = True) -> str:
    """Returns the local file for ``url`` if it is already there; this runtime never downloads."""
    if path is None:
        fname = url.split("/")[-1]
    else:
        path = os.path.expanduser(path)
        fname = os.path.join(path, url.split("/")[-1]) if os.path.isdir(path) else path
    if os.path.exists(fname) and not overwrite and (not sha1_hash or check_sha1(fname, sha1_hash)):
        return fname
    raise RuntimeError(f"cannot download {url}: this runtime does not access the network "
                       f"(place the file at {fname} yourself)")


def _get_repo_url() -> str:
    default_repo = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"
    repo_url = os.environ.get("MXNET_GLUON_REPO", default_repo)
    if repo_url[-1] != "/":
        repo_url = repo_url + "/"
    return repo_url


def _get_repo_file_url(namespace: str, filename: str) -> str:
    return "{base_url}{namespace}/{filename}".format(base_url=_get_repo_url(), namespace=namespace,
                                                     filename=filename)


def _brief_print_list(lst: Any, limit: int = 7) -> str:
    """At most ``limit`` quoted elements of ``lst``, joined by commas."""
    lst = list(lst)
    if len(lst) > limit:
        return _brief_print_list(lst[:limit // 2], limit) + ", ..., " + _brief_print_list(lst[-limit // 2:], limit)
    return ", ".join(["'%s'" % str(i) for i in lst])


class HookHandle:
    """A handle that can attach/detach a hook."""

    def __init__(self) -> None:
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict: dict, hook: Any) -> None:
        assert not self._hooks_dict_ref, "The same handle cannot be attached twice."
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self) -> None:
        hooks_dict = self._hooks_dict_ref()
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self) -> tuple:
        return (self._hooks_dict_ref(), self._id)

    def __setstate__(self, state: tuple) -> None:
        if state[0] is None:
            self._hooks_dict_ref = weakref.ref(collections.OrderedDict())
        else:
            self._hooks_dict_ref = weakref.ref(state[0])
        self._id = state[1]

    def __enter__(self) -> "HookHandle":
        return self

    def __exit__(self, ptype: Any, value: Any, trace: Any) -> None:
        self.detach()


def shape_is_known(shape: Any) -> bool:
    """Whether every dimension of ``shape`` is known (0 means unknown in MXNet's classic mode, -1 with
    NumPy shape semantics on); ``()`` is known only with NumPy shape semantics, as in MXNet. The
    runtime's one definition (``ops._util.known``) decides."""
    return known(shape, scalar=False)


def _check_same_symbol_type(symbols: list) -> type:
    """The class of the traced outputs (np-mode ``_Symbol`` or classic ``Symbol``); a mix is refused
    with MXNet's TypeError, since the two kinds cannot be grouped into one graph's outputs."""
    from ..symbol import Symbol as nd_symbol
    from ..symbol_numpy import _Symbol as np_symbol
    is_np_sym = isinstance(symbols[0], np_symbol)
    for s in symbols[1:]:
        if is_np_sym != isinstance(s, np_symbol):
            raise TypeError("Found both classic symbol (mx.sym.Symbol) and numpy symbol (mx.sym.np._Symbol) in "
                            "outputs. This will prevent you from building a computation graph by grouping them "
                            "since different types of symbols are not allowed to be grouped in Gluon to form a "
                            "computation graph. You will need to convert them to the same type of symbols, either "
                            "classic or numpy following this rule: if you want numpy ndarray output(s) from the "
                            "computation graph, please convert all the classic symbols in the list to numpy "
                            "symbols by calling `as_np_ndarray()` on each of them; if you want classic ndarray "
                            "output(s) from the computation graph, please convert all the numpy symbols in the "
                            "list to classic symbols by calling `as_nd_ndarray()` on each of them.")
    return np_symbol if is_np_sym else nd_symbol


def _check_all_np_ndarrays(out: Any) -> None:
    """With NumPy array semantics on, a Block returns only ``mx.np`` arrays (or np-mode Symbols): a
    classic NDArray or Symbol among the outputs is MXNet's TypeError."""
    from ..ndarray import NDArray as nd_ndarray
    from ..numpy import ndarray as np_ndarray
    from ..symbol import Symbol as nd_symbol
    from ..symbol_numpy import _Symbol as np_symbol
    if isinstance(out, (nd_ndarray, nd_symbol)) and not isinstance(out, (np_ndarray, np_symbol)):
        raise TypeError("Block's output ndarrays/symbols must be of type `mxnet.numpy.ndarray` or "
                        "`mxnet.symbol.numpy._Symbol`, while got output type {}".format(str(type(out))))
    if isinstance(out, (list, tuple)):
        for i in out:
            _check_all_np_ndarrays(i)
