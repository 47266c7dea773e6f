"""Operators MXNet 1.9.1 registers without a gradient (no ``FGradient``): a backward pass through
one of them raises ``NonDifferentiableError``, as MXNet's does ("Operator X is non-differentiable
because it didn't register FGradient attribute").

Each entry names the MXNet source file (``src/...`` at tag 1.9.1) whose registration shows it. The
registry marks these ops ``gradient=None``; every other operator has a rule or ``ZERO_GRAD``
(``tests/autograd/test_every_op_has_gradient.py`` holds the registry to this table).
"""
from __future__ import annotations

__all__ = ["NON_DIFFERENTIABLE", "is_backward_kernel"]

_OPTIMIZER = "src/operator/optimizer_op.cc"

NON_DIFFERENTIABLE: dict[str, str] = {
    # optimizer updates write their results into the weight and states
    **{name: _OPTIMIZER for name in (
        "sgd_update", "sgd_mom_update", "mp_sgd_update", "mp_sgd_mom_update", "signsgd_update", "signum_update",
        "nag_mom_update", "mp_nag_mom_update", "adam_update", "ftml_update", "ftrl_update", "rmsprop_update",
        "rmspropalex_update", "lamb_update_phase1", "lamb_update_phase2", "mp_lamb_update_phase1",
        "mp_lamb_update_phase2", "multi_sgd_update", "multi_sgd_mom_update", "multi_mp_sgd_update",
        "multi_mp_sgd_mom_update")},
    **{name: "src/operator/contrib/preloaded_multi_sgd.cc" for name in (
        "preloaded_multi_sgd_update", "preloaded_multi_sgd_mom_update", "preloaded_multi_mp_sgd_update",
        "preloaded_multi_mp_sgd_mom_update")},
    "_multi_lamb_update": "src/operator/contrib/multi_lamb.cc",
    "_multi_mp_lamb_update": "src/operator/contrib/multi_lamb.cc",
    "_adamw_update": "src/operator/contrib/adamw.cc",
    "_mp_adamw_update": "src/operator/contrib/adamw.cc",
    "_multi_adamw_update": "src/operator/contrib/adamw.cc",
    "_multi_mp_adamw_update": "src/operator/contrib/adamw.cc",
    "multi_lars": "src/operator/contrib/multi_lars.cc",
    "multi_sum_sq": "src/operator/contrib/multi_sum_sq.cc",
    "all_finite": "src/operator/contrib/all_finite.cc",
    "multi_all_finite": "src/operator/contrib/all_finite.cc",
    "_histogram": "src/operator/tensor/histogram.cc",
    "_contrib_allclose": "src/operator/contrib/allclose_op.cc",
    "_shuffle": "src/operator/random/shuffle_op.cc",
    "batch_take": "src/operator/tensor/indexing_op.cc",
    "khatri_rao": "src/operator/contrib/krprod.cc",
    "_slice_assign": "src/operator/tensor/matrix_op.cc",
    "_slice_assign_scalar": "src/operator/tensor/matrix_op.cc",
    "_grad_add": "src/operator/tensor/elemwise_binary_op_basic.cc",
    "_contrib_quantized_act": "src/operator/quantization/quantized_activation.cc",
    "_contrib_RROIAlign": "src/operator/contrib/rroi_align.cc",
    "_cvimresize": "src/io/image_io.cc",
    "_cvcopyMakeBorder": "src/io/image_io.cc",
    # legacy NDArray functions (MXNET_REGISTER_NDARRAY_FUN), not operators: autograd never records them
    "_onehot_encode": "src/ndarray/ndarray.cc",
    "fill_element_0index": "src/ndarray/ndarray.cc",
    # np operators registered without FGradient
    "_npi_delete": "src/operator/numpy/np_delete_op.cc",
    "_npi_insert_scalar": "src/operator/numpy/np_insert_op_scalar.cc",
    "_npi_insert_slice": "src/operator/numpy/np_insert_op_slice.cc",
    "_npi_insert_tensor": "src/operator/numpy/np_insert_op_tensor.cc",
}


def is_backward_kernel(name: str) -> bool:
    """A private ``_backward_X`` kernel a gradient rule calls: MXNet gives these no FGradient (second
    order gradients are outside the runtime's scope)."""
    return "_backward" in name
