"""A Custom operator's gradient is its CustomOp's own ``backward`` (MXNet 1.9.1 registers FGradient for
every Custom op): the rule hands it the output gradients, the inputs and the outputs."""
from __future__ import annotations

import numpy as np
from gradcheck import check_vjp, vjp
from hybridize.runtime import operator


class _Cube(operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.saved = in_data[0].asnumpy()          # state kept between forward and backward
        self.assign(out_data[0], req[0], in_data[0] ** 3 * float(self.scale))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        g = out_grad[0].asnumpy() * 3 * self.saved ** 2 * float(self.scale)
        self.assign(in_grad[0], req[0], g)
        self.assign(in_grad[1], req[1], out_grad[0] * 0)


@operator.register("grad_test_cube")
class _CubeProp(operator.CustomOpProp):
    def __init__(self, scale="1.0"):
        super().__init__(need_top_grad=True)
        self.scale = scale

    def list_arguments(self):
        return ["data", "other"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        op = _Cube()
        op.scale = self.scale
        return op


def test_custom_gradient_is_the_user_backward():
    x = np.array([1.0, -2.0, 0.5])
    grads = check_vjp("Custom", [x, np.ones(3)], {"op_type": "grad_test_cube", "scale": "2.0"}, rtol=1e-6,
                      atol=1e-6, wrt=[0])
    grads, _, _ = vjp("Custom", [x.astype(np.float32), np.ones(3, np.float32)],
                      {"op_type": "grad_test_cube", "scale": "2.0"}, out_grads=[np.ones(3, np.float32)])
    np.testing.assert_allclose(grads[0], 6 * x ** 2, rtol=1e-6)
    np.testing.assert_array_equal(grads[1], np.zeros(3))
