"""Gradients of the attention matmuls, the resizing operators and the densities agree with finite
differences (MXNet's numbers for the same families: test_grad_vs_mxnet.py)."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_vjp


def _r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _u(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, shape)


_COUNTS = np.array([[0.0, 1, 3], [2, 2, 5]])

CASES = [
    ("_contrib_interleaved_matmul_selfatt_qk", [_r(3, 2, 12)], {"heads": 2}, None),
    ("_contrib_interleaved_matmul_selfatt_valatt", [_r(3, 2, 12), _r(4, 3, 3, seed=1)], {"heads": 2}, None),
    ("_contrib_interleaved_matmul_encdec_qk", [_r(3, 2, 4), _r(4, 2, 8, seed=1)], {"heads": 2}, None),
    ("_contrib_interleaved_matmul_encdec_valatt", [_r(4, 2, 8), _r(4, 3, 4, seed=1)], {"heads": 2}, None),
    ("Pad", [_r(1, 2, 3, 4)], {"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1)}, None),
    ("Pad", [_r(1, 2, 3, 4)], {"mode": "edge", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1)}, None),
    ("Pad", [_r(1, 2, 3, 4)], {"mode": "reflect", "pad_width": (0, 0, 0, 0, 2, 1, 1, 2)}, None),
    ("UpSampling", [_r(1, 2, 2, 3), _r(1, 2, 4, 6, seed=1)],
     {"scale": 2, "sample_type": "nearest", "num_args": 2, "multi_input_mode": "sum"}, None),
    ("UpSampling", [_r(1, 2, 2, 3), _r(1, 1, 4, 6, seed=1)], {"scale": 2, "sample_type": "nearest", "num_args": 2},
     None),
    ("_contrib_AdaptiveAvgPooling2D", [_r(1, 2, 5, 7)], {"output_size": (3, 2)}, None),
    ("_contrib_BilinearResize2D", [_r(1, 2, 3, 4)], {"height": 5, "width": 7}, None),
    ("_contrib_BilinearResize2D", [_r(1, 2, 3, 4), _r(1, 1, 6, 2)], {"mode": "like", "align_corners": False}, None),
    ("Crop", [_r(1, 2, 5, 6), _r(1, 1, 2, 4)], {"num_args": 2, "center_crop": True}, None),
    ("_random_pdf_normal", [_r(2, 3), _r(2, seed=1), _u(2)], {}, None),
    ("_random_pdf_uniform", [_u(2, 3), np.full(2, 0.1), np.full(2, 3.0)], {"is_log": True}, None),
    ("_random_pdf_gamma", [_u(2, 3), _u(2, seed=1), _u(2, seed=2)], {}, None),
    ("_random_pdf_exponential", [_u(2, 3), _u(2, seed=1)], {"is_log": True}, None),
    # discrete densities: MXNet gives the (integer) sample no gradient
    ("_random_pdf_poisson", [_COUNTS, _u(2)], {}, [1]),
    ("_random_pdf_negative_binomial", [_COUNTS, _u(2), np.array([0.3, 0.6])], {"is_log": True}, [1, 2]),
    ("_random_pdf_generalized_negative_binomial", [_COUNTS, _u(2), _u(2, seed=1)], {}, [1, 2]),
    ("_random_pdf_dirichlet", [np.array([[[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]]), _u(1, 3)], {}, None),
]


@pytest.mark.parametrize("name,inputs,attrs,wrt", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_matches_finite_differences(name, inputs, attrs, wrt):
    check_vjp(name, inputs, attrs, rtol=1e-5, atol=1e-6, wrt=wrt)


@pytest.mark.parametrize("pool_type", ["max", "avg", "sum"])
@pytest.mark.parametrize("convention", ["valid", "full"])
def test_pooling_v1_gradient_matches_finite_differences(pool_type, convention):
    check_vjp("Pooling_v1", [_r(1, 2, 5, 6)], {"kernel": (2, 3), "stride": (2, 2), "pad": (1, 1),
                                               "pool_type": pool_type, "pooling_convention": convention},
              rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("fix_gamma", [True, False])
@pytest.mark.parametrize("train", [True, False])
def test_batchnorm_v1_gradient_matches_finite_differences(fix_gamma, train):
    # a float32-only kernel: finite differences in float32, so a looser tolerance
    ins = [_r(3, 2, 2, 2), 1 + _u(2, seed=1), _r(2, seed=2), _r(2, seed=3), 1 + _u(2, seed=4)]
    check_vjp("BatchNorm_v1", [x.astype(np.float32) for x in ins], {"fix_gamma": fix_gamma}, rtol=2e-2, atol=2e-3,
              wrt=[0, 1, 2], train=train)


def test_cross_device_copy_passes_the_gradient_through():
    og = _r(2, 3, seed=5)
    grads = check_vjp("_CrossDeviceCopy", [_r(2, 3)], out_grads=[og])
    np.testing.assert_array_equal(grads[0], og)


_ROIS = np.array([[0, 1.2, 0.7, 6.3, 5.1], [1, 0, 0, 7, 7], [0, 3.1, 2.2, 4.9, 6.8]])
# sample points off the integer lattice (a finite difference across a bilinear kink is not a slope)
_THETA = np.array([[0.9, 0.1, 0.05, -0.1, 0.8, 0.02], [1.07, -0.23, 0.11, 0.13, 0.93, -0.05]])


@pytest.mark.parametrize("name,inputs,attrs,wrt", [
    ("BilinearSampler", [_r(2, 3, 4, 5), np.random.default_rng(1).uniform(-1.1, 1.1, (2, 2, 3, 4))], {}, None),
    ("GridGenerator", [_r(2, 6)], {"transform_type": "affine", "target_shape": (3, 4)}, None),
    ("GridGenerator", [_r(2, 2, 3, 4)], {"transform_type": "warp"}, None),
    ("SpatialTransformer", [_r(2, 3, 4, 5), _THETA],
     {"target_shape": (3, 4), "transform_type": "affine", "sampler_type": "bilinear"}, None),
    ("ROIPooling", [_r(2, 3, 8, 8), _ROIS], {"pooled_size": (2, 3), "spatial_scale": 1.0}, [0]),
    ("_contrib_ROIAlign", [_r(2, 3, 8, 8), _ROIS], {"pooled_size": (2, 2), "spatial_scale": 0.9}, [0]),
    ("_contrib_ROIAlign", [_r(2, 3, 8, 8), _ROIS], {"pooled_size": (2, 2), "spatial_scale": 0.9, "sample_ratio": 2,
                                                    "aligned": True}, [0]),
    ("_contrib_ROIAlign", [_r(2, 8, 8, 8), _ROIS], {"pooled_size": (2, 2), "spatial_scale": 0.9,
                                                    "position_sensitive": True}, [0]),
])
def test_spatial_and_roi_gradients_match_finite_differences(name, inputs, attrs, wrt):
    check_vjp(name, inputs, attrs, rtol=1e-5, atol=1e-6, wrt=wrt)


@pytest.mark.parametrize("multiply", [True, False])
def test_correlation_gradient_matches_finite_differences(multiply):
    check_vjp("Correlation", [_r(1, 2, 6, 7), _r(1, 2, 6, 7, seed=1)],
              {"kernel_size": 3, "max_displacement": 2, "stride2": 2, "pad_size": 2, "is_multiply": multiply},
              rtol=1e-5, atol=1e-6)


def test_psroi_pooling_gradient_matches_finite_differences():
    check_vjp("_contrib_PSROIPooling", [_r(2, 9, 8, 8), _ROIS],
              {"spatial_scale": 1.0, "output_dim": 1, "pooled_size": 3, "group_size": 3}, rtol=1e-5, atol=1e-6,
              wrt=[0])


def test_deformable_convolutions_match_finite_differences():
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((1, 4, 7, 7)), 0.5 * rng.standard_normal((4, 2, 2, 2)), rng.standard_normal(4)
    attrs = {"kernel": (2, 2), "stride": (2, 2), "num_filter": 4, "num_group": 2, "num_deformable_group": 2}
    # v1: sample points off the lattice and off its clamped border (MXNet's test numbers cover the border)
    offset = rng.uniform(0.1, 0.4, (1, 16, 3, 3))
    check_vjp("_contrib_DeformableConvolution", [x, offset, w, b], attrs, rtol=1e-5, atol=1e-6)
    # v2 (MXNet computes its backward on GPU only; the same formulas here): padding and large offsets
    attrs = {"kernel": (2, 2), "pad": (1, 1), "num_filter": 4, "num_group": 2, "num_deformable_group": 2}
    x = rng.standard_normal((1, 4, 6, 6))
    offset = rng.uniform(-1.3, 1.3, (1, 16, 7, 7)) + 0.01
    mask = rng.uniform(0.2, 1.0, (1, 8, 7, 7))
    check_vjp("_contrib_ModulatedDeformableConvolution", [x, offset, mask, w, b], attrs, rtol=1e-5, atol=1e-6)


def test_deformable_psroi_pooling_matches_finite_differences():
    rng = np.random.default_rng(0)
    # one class (output_dim 1): 4 data channels keep the finite differences at half the cost
    attrs = {"spatial_scale": 0.9, "output_dim": 1, "group_size": 2, "pooled_size": 2, "sample_per_part": 2,
             "trans_std": 0.1}
    ins = [rng.standard_normal((2, 4, 8, 8)), _ROIS, rng.uniform(-0.3, 0.3, (3, 2, 2, 2))]
    check_vjp("_contrib_DeformablePSROIPooling", ins, attrs, rtol=1e-5, atol=1e-6, wrt=[0, 2])
    check_vjp("_contrib_DeformablePSROIPooling", ins[:2], {**attrs, "no_trans": True}, rtol=1e-5, atol=1e-6, wrt=[0])


def test_im2col_and_col2im_are_each_others_gradient():
    attrs = {"kernel": (2, 3), "stride": (2, 1), "pad": (1, 0)}
    check_vjp("im2col", [_r(1, 2, 5, 5)], attrs, rtol=1e-6, atol=1e-7)
    check_vjp("col2im", [_r(1, 12, 9)], {**attrs, "output_size": (5, 5)}, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name,extra", [("_contrib_SyncBatchNorm", {"key": "k"}), ("_contrib_BatchNormWithReLU", {})])
def test_batch_norm_variants_use_batch_norms_gradient(name, extra):
    ins = [_r(3, 2, 2, 2), 1 + _u(2, seed=1), _r(2, seed=2), _r(2, seed=3), 1 + _u(2, seed=4)]
    check_vjp(name, [x.astype(np.float32) for x in ins], {"fix_gamma": False, **extra}, rtol=2e-2, atol=2e-3,
              wrt=[0, 1, 2])
