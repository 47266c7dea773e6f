"""Convolution algorithms of the compiled program: a registry, one module per algorithm.

The layout pass lowers an NCHW ``Convolution`` to the internal op ``_hy_conv`` (NHWC input and
output) whose ``algo`` attribute names one :class:`ConvAlgo` of this registry, plus a static
``_hy_conv_weight`` node that re-lays the weights out for that algorithm (evaluated at
``bind_params``). Each algorithm lives in its own module of this package and says:

- ``eligible(spec)``: which convolutions it can compute (a :class:`ConvSpec`: the NHWC input
  shape, kernel geometry, groups, dtype);
- ``weight(w, groups)`` / ``weight_shape(shape, groups)``: its weight layout, from MXNet's
  ``(K, C/groups, KH, KW)``;
- ``scratch(spec)``: the temporary buffers a call needs (the memory planner provides them);
- ``build(spec)``: the kernel ``fn(data, weight, out, *scratch, bias=, residual=, ...)``, which
  writes ``out`` and applies the fused epilogue (bias, residual add, activation) in place;
- ``tunable`` (timed against the other eligible tunable algorithms, see :mod:`.tune`), ``rule``
  (its preference when nothing is timed; None = never chosen by the rule), ``prologue`` (whether it
  accepts a fused input affine) and ``forced_by`` (``options["winograd"]`` values that force it).

Operands are bound by name (:data:`OPERANDS`, :class:`ConvOperands`): a node's inputs are the
present operands in that one fixed order, the passes read and rewrite them through
:class:`ConvOperands`, the kernels receive the optional ones as keyword arguments.
Algorithms registered: ``gemm`` (im2col + one matmul), ``wino`` (Winograd F(2x2,3x3)),
``wino4`` (F(4x4,3x3)), ``dw`` (depthwise) and ``group`` (one matmul per group).
"""
from __future__ import annotations

import dataclasses
import importlib
import os
import pkgutil
from dataclasses import dataclass
from typing import Any, Callable, Generic, Optional, TypeVar

import numpy as np

from ..common import _internal, _p

__all__ = ["ConvSpec", "ConvAlgo", "ConvOperands", "OPERANDS", "register", "get_algo", "all_algos", "choose",
           "build_conv", "conv_weight", "conv_out_hw", "CONV", "CONV_WEIGHT"]


def conv_out_hw(H: int, W: int, a: Any) -> tuple[int, int]:
    """Output height and width of a convolution with attrs ``a`` (kernel, stride, pad, dilate)."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = a.kernel, a.stride, a.pad, a.dilate
    OH = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    OW = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    return OH, OW


@dataclass(frozen=True)
class ConvSpec:
    """One convolution as an algorithm sees it: NHWC input ``(N, H, W, C)``, ``K`` filters, geometry,
    dtype and the fused parts (epilogue activation, bias, residual, input prologue)."""
    N: int
    H: int
    W: int
    C: int
    K: int
    kernel: tuple
    stride: tuple
    pad: tuple
    dilate: tuple
    groups: int = 1
    dtype: np.dtype = np.dtype(np.float32)
    act: tuple = ()
    has_bias: bool = False
    has_res: bool = False
    has_pre: bool = False
    pre_act: tuple = ()
    pre_fold: bool = False

    @property
    def OH(self) -> int:
        return conv_out_hw(self.H, self.W, self)[0]

    @property
    def OW(self) -> int:
        return conv_out_hw(self.H, self.W, self)[1]

    @property
    def M(self) -> int:
        """Output pixels (rows of the output viewed as ``(M, K)``)."""
        return self.N * self.OH * self.OW

    @property
    def padded(self) -> bool:
        return bool(self.pad[0] or self.pad[1])

    @classmethod
    def of(cls, a: Any, x_shape: tuple, dtype: Any) -> "ConvSpec":
        """The spec of a ``_hy_conv`` with (resolved) attrs ``a`` on an NHWC input of ``x_shape``."""
        N, H, W, C = (int(v) for v in x_shape)
        has_pre = bool(getattr(a, "has_pre", False))
        return cls(N, H, W, C, int(a.num_filter), tuple(a.kernel), tuple(a.stride), tuple(a.pad), tuple(a.dilate),
                   int(a.groups), np.dtype(dtype), tuple(a.act or ()), bool(a.has_bias), bool(a.has_res), has_pre,
                   tuple(getattr(a, "pre_act", ()) or ()), has_pre and bool(getattr(a, "pre_fold", False)))


@dataclass(frozen=True)
class ConvAlgo:
    """One registered convolution algorithm (see the module docstring)."""
    name: str
    order: int                                          # registry order: candidates are timed/tie-broken in it
    eligible: Callable[[ConvSpec], bool]
    weight: Callable[[np.ndarray, int], np.ndarray]
    weight_shape: Callable[[tuple, int], tuple]
    scratch: Callable[[ConvSpec], list]
    build: Callable[[ConvSpec], Callable]
    tunable: bool = False
    rule: Callable[[ConvSpec], Optional[float]] = lambda spec: 0.0
    prologue: Callable[[Any], bool] = lambda a: False   # a: attrs or spec (kernel, stride, pad, groups)
    forced_by: tuple = ()
    winograd: bool = False                              # excluded by options["winograd"] = False
    version: int = 1                                    # bumped when the kernel changes: stored timings expire
    residual_inplace: Callable[[ConvSpec], bool] = lambda spec: False   # kernel accepts ``out is residual``


_ALGOS: dict[str, ConvAlgo] = {}


def register(algo: ConvAlgo) -> ConvAlgo:
    _ALGOS[algo.name] = algo
    return algo


def _discover() -> None:
    for m in pkgutil.iter_modules(__path__):
        if not m.name.startswith("_") and m.name != "tune":
            importlib.import_module(f"{__name__}.{m.name}")


def all_algos() -> list[ConvAlgo]:
    """Every registered algorithm, in registry order."""
    return sorted(_ALGOS.values(), key=lambda a: (a.order, a.name))


def get_algo(name: str) -> ConvAlgo:
    try:
        return _ALGOS[name]
    except KeyError:
        raise ValueError(f"unknown convolution algorithm {name!r}") from None


# ------------------------------------------------------------------------------------------
# operands, by name
# ------------------------------------------------------------------------------------------
OPERANDS = ("data", "weight", "bias", "residual", "pre_scale", "pre_shift", "pre_bounds")
"""Every operand of ``_hy_conv``, in the order a node's inputs list the present ones. ``pre_*``: a
fused input affine (prologue), either ``(pre_scale, pre_shift)`` or, with the scale folded into the
weights (``pre_fold``), ``(pre_shift, pre_bounds)``."""


def operand_names(a: Any) -> tuple:
    """The operands present for attrs ``a`` (``has_bias``, ``has_res``, ``has_pre``, ``pre_fold``), in order."""
    pre = bool(getattr(a, "has_pre", False))
    fold = pre and bool(getattr(a, "pre_fold", False))
    present = {"data": True, "weight": True, "bias": bool(a.has_bias), "residual": bool(a.has_res),
               "pre_scale": pre and not fold, "pre_shift": pre, "pre_bounds": fold}
    return tuple(n for n in OPERANDS if present[n])


T = TypeVar("T")


@dataclass
class ConvOperands(Generic[T]):
    """The operands of one convolution (graph entries in the passes, arrays in the kernels)."""
    data: T
    weight: T
    bias: Optional[T] = None
    residual: Optional[T] = None
    pre_scale: Optional[T] = None
    pre_shift: Optional[T] = None
    pre_bounds: Optional[T] = None

    @classmethod
    def bind(cls, a: Any, values: Any) -> "ConvOperands":
        """The operands of a ``_hy_conv`` with attrs ``a`` from its positional ``values``."""
        names = operand_names(a)
        values = list(values)
        if len(values) != len(names):
            raise ValueError(f"_hy_conv takes {len(names)} operands {names}, got {len(values)}")
        return cls(**dict(zip(names, values)))

    @classmethod
    def of(cls, node: Any) -> "ConvOperands":
        """The operands of a ``_hy_conv`` graph node (its input entries, by name)."""
        return cls.bind(node.resolved, node.inputs)

    def flags(self) -> dict:
        """The attributes that say which operands are present (a node's attrs must agree)."""
        if self.pre_scale is not None and self.pre_bounds is not None:
            raise ValueError("a convolution prologue is either scale+shift or shift+bounds (folded)")
        has_pre = self.pre_shift is not None
        if not has_pre and (self.pre_scale is not None or self.pre_bounds is not None):
            raise ValueError("a convolution prologue needs its shift")
        return {"has_bias": self.bias is not None, "has_res": self.residual is not None, "has_pre": has_pre,
                "pre_fold": has_pre and self.pre_bounds is not None}

    def values(self) -> list:
        """The present operands in :data:`OPERANDS` order (a node's inputs)."""
        return [v for v in (getattr(self, n) for n in OPERANDS) if v is not None]

    def optional(self) -> dict:
        """The present optional operands by name (the kernels' keyword arguments)."""
        return {n: getattr(self, n) for n in OPERANDS[2:] if getattr(self, n) is not None}

    def replace(self, **changes: Any) -> "ConvOperands":
        return dataclasses.replace(self, **changes)


def set_operands(graph: Any, node: Any, ops: ConvOperands, **attrs: Any) -> None:
    """Rewrites a ``_hy_conv`` node of ``graph`` to read ``ops``, its attrs to agree (plus ``attrs``)."""
    graph.set_attrs(node, {**node.attrs, **attrs, **ops.flags()})
    graph.set_inputs(node, ops.values())


# ------------------------------------------------------------------------------------------
# choice
# ------------------------------------------------------------------------------------------
def autotuned(winograd: Any) -> bool:
    """Are eligible tunable algorithms chosen by timing them (the default)? Not when an option
    forces the choice or ``HYBRIDIZE_AUTOTUNE=0``."""
    return winograd is None and os.environ.get("HYBRIDIZE_AUTOTUNE", "1") != "0"


def choose(spec: ConvSpec, winograd: Any = None, budget: list | None = None) -> str:
    """The algorithm for ``spec``: one that ``options["winograd"]`` forces, else the fastest of the
    eligible tunable algorithms measured on this shape (:func:`.tune.tune_conv_algo`, when there are
    several and timing is allowed), else the eligible algorithm the fixed rule prefers."""
    from . import tune
    eligible = [a for a in all_algos() if a.eligible(spec)]
    if winograd is not None:            # an explicit choice: the algorithm it names, else no Winograd
        for a in eligible:
            if any(type(winograd) is type(f) and winograd == f for f in a.forced_by):
                return a.name
        eligible = [a for a in eligible if not a.winograd]
    tunable = tuple(a.name for a in eligible if a.tunable)
    if autotuned(winograd) and len(tunable) > 1:
        best = tune.tune_conv_algo((spec.N, spec.H, spec.W, spec.C), tune.key_attrs(spec), np.float32, tunable, budget)
        if best is not None:
            return best
    ranked = [(r, -a.order, a.name) for a in eligible for r in [a.rule(spec)] if r is not None]
    if not ranked:
        raise ValueError(f"no convolution algorithm for {spec}")
    return max(ranked)[2]


# ------------------------------------------------------------------------------------------
# the internal ops
# ------------------------------------------------------------------------------------------
def build_conv(a: Any, x_shape: tuple, dtype: Any) -> tuple[Callable, list]:
    """``(kernel, scratch)`` for a ``_hy_conv`` with attrs ``a`` on an NHWC input of ``x_shape``:
    ``kernel(data, weight, out, *scratch_buffers, **optional_operands)``, ``scratch`` a list of
    ``(shape, dtype)``."""
    spec = ConvSpec.of(a, x_shape, dtype)
    algo = get_algo(a.algo)
    if spec.has_pre and not algo.prologue(spec):
        raise ValueError(f"a fused input affine (has_pre) is not supported by the {algo.name!r} convolution "
                         f"of kernel {spec.kernel}, stride {spec.stride}, pad {spec.pad}, groups {spec.groups}")
    return algo.build(spec), algo.scratch(spec)


def conv_weight(w: np.ndarray, algo: str, groups: int) -> np.ndarray:
    """MXNet's ``(K, C/groups, KH, KW)`` weights in the layout of ``algo``'s kernel."""
    return get_algo(algo).weight(w, groups)


def _conv_weight_shape(attrs, in_shapes):
    if not attrs.algo:     # lowered, algorithm not chosen yet (passes/conv_algo.py): MXNet's layout
        return list(in_shapes), [tuple(in_shapes[0])]
    return list(in_shapes), [tuple(get_algo(attrs.algo).weight_shape(tuple(in_shapes[0]), attrs.groups))]


CONV_WEIGHT = _internal("_hy_conv_weight", lambda attrs, w: conv_weight(w, attrs.algo, attrs.groups),
                        (_p("algo"), _p("groups", 1)), ("weight",), _conv_weight_shape)


def _conv_attrs():
    return (_p("kernel"), _p("stride"), _p("pad"), _p("dilate"), _p("num_filter"), _p("groups", 1),
            _p("algo", "gemm"), _p("act", ()), _p("has_bias", False), _p("has_res", False),
            _p("has_pre", False), _p("pre_act", ()), _p("pre_fold", False))


def _conv_shape(a, in_shapes):
    N, H, W, C = in_shapes[0]
    OH, OW = conv_out_hw(H, W, a)
    return list(in_shapes), [(N, OH, OW, a.num_filter)]


def _conv_compute(a, *arrays):
    ops = ConvOperands.bind(a, arrays)
    x = ops.data
    N, H, W, C = x.shape
    OH, OW = conv_out_hw(H, W, a)
    fn, scratch = build_conv(a, x.shape, x.dtype)
    out = np.empty((N, OH, OW, a.num_filter), x.dtype)
    fn(x, ops.weight, out, *[np.empty(s, d) for s, d in scratch], **ops.optional())
    return out


CONV = _internal("_hy_conv", _conv_compute, _conv_attrs(), operand_names, _conv_shape)


_discover()
