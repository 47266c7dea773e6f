"""Gradients of the image, detection and sampling operators, as MXNet 1.9.1 defines them."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_vjp, vjp
from hybridize.runtime.base import ShapeError


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_image_augmenters_pass_the_gradient_through_unchanged_even_flips():
    # MXNet registers ElemwiseGradUseNone{"_copy"} for every augmenter: a flip's gradient is not flipped
    og = _x(4, 6, 1, seed=1)
    grads, _, _ = vjp("_image_flip_left_right", [_x(4, 6, 1)], out_grads=[og])
    np.testing.assert_array_equal(grads[0], og)


def test_image_ops_changing_the_shape_refuse_a_backward_pass_as_mxnet():
    with pytest.raises(ShapeError, match="Incompatible attr"):
        vjp("_image_to_tensor", [_x(2, 3, 4)])


def test_image_normalize_and_crop_match_finite_differences():
    check_vjp("_image_normalize", [_x(3, 2, 2)], {"mean": (0.1, 0.2, 0.3), "std": (0.5, 2.0, 4.0)})
    check_vjp("_image_crop", [_x(4, 5, 3)], {"x": 1, "y": 2, "width": 3, "height": 2})


def test_box_nms_sends_each_kept_row_gradient_to_its_input_row():
    data = np.array([[[0, 0.5, 0, 0, 1, 1], [0, 0.9, 0, 0, 1, 1], [1, 0.7, 2, 2, 3, 3]]], np.float32)
    og = np.arange(18, dtype=np.float32).reshape(1, 3, 6)
    grads, outs, _ = vjp("_contrib_box_nms", [data], {"overlap_thresh": 0.5}, out_grads=[og])
    # output rows: input row 1 (score .9), input row 2 (.7), filler (-1); input row 0 is suppressed
    np.testing.assert_array_equal(outs[0][0, :2], data[0, [1, 2]])
    np.testing.assert_array_equal(grads[0][0], np.stack([np.zeros(6), og[0, 0], og[0, 1]]))


def test_multinomial_log_probability_gradient():
    p = np.array([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]], np.float32)
    grads, outs, _ = vjp("_sample_multinomial", [p], {"get_prob": True, "shape": (4,)},
                         out_grads=[np.zeros((2, 4), np.int32), np.ones((2, 4), np.float32)])
    counts = np.stack([np.bincount(outs[0][i].astype(int), minlength=3) for i in range(2)])
    np.testing.assert_allclose(grads[0], counts / p, rtol=1e-6)


@pytest.mark.parametrize("name,inputs,attrs", [
    ("_random_normal_like", [_x(2, 3)], {}), ("_sample_normal", [_x(2), np.ones(2, np.float32)], {"shape": (3,)}),
    ("_contrib_box_iou", [_x(2, 4), _x(3, 4, seed=1)], {}), ("_contrib_bipartite_matching", [_x(3, 4)],
                                                                  {"threshold": 0.1}),
])
def test_samplers_and_box_matching_have_zero_gradient(name, inputs, attrs):
    grads, _, _ = vjp(name, inputs, attrs)
    assert all(not g.any() for g in grads)
