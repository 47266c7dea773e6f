"""Cases behind MXNet 1.9.1's own test_numpy_* files, recorded on MXNet 1.9.1 by
tools/numpy_rt/record_unittest_cases.py (our cases, not MXNet's test code).

Each case is a block of statements run with ``mx``, ``np``, ``npx``, ``onp`` (NumPy), ``autograd`` and
``HybridBlock`` in scope (NumPy array semantics on); it leaves its answer in ``out``. The recorder
stores MXNet's answer (or the exception's type) in fixtures/np_unittest_cases.json;
tests/numpy/test_np_unittest_cases.py runs the same block on the runtime and compares.
"""

CASES = {
    # a classic NDArray's np view is the same autograd variable (MXNet's shallow copy)
    "as_np_ndarray_shares_the_gradient": """
d = mx.nd.array([[1., 2.], [3., 4.]]); d.attach_grad()
with autograd.record():
    y = (d.as_np_ndarray() * d.as_np_ndarray()).sum()
y.backward()
out = d.grad.as_np_ndarray()
""",
    "as_nd_ndarray_shares_the_gradient": """
d = np.array([1., 2., 3.]); d.attach_grad()
with autograd.record():
    y = (d.as_nd_ndarray() * 3).sum()
y.backward()
out = d.grad
""",
    # a sampler's parameter given as a tensor is an input of the node (attribute None)
    "symbolic_sampler_tensor_parameter": """
s = mx.sym.var('s').as_np_ndarray()
o = mx.sym.np.random.exponential(s, (3, 2))
out = (o.list_arguments(), o.attr_dict()['exponential0']['scale'])
""",
    "hybridized_sampler_gradient_reaches_the_parameter": """
class Exp(HybridBlock):
    def hybrid_forward(self, F, scale):
        return F.np.random.exponential(scale, (4,))
b = Exp(); b.hybridize()
scale = np.ones((4,)); scale.attach_grad()
with autograd.record():
    o = b(scale)
o.backward()
out = bool(onp.allclose(scale.grad.asnumpy(), o.asnumpy(), rtol=1e-5))
""",
}
