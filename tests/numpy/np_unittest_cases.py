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
    # functions NumPy has that MXNet computes in its own operators: imperative and hybridized alike
    "delete_index_tensor_ignores_out_of_range": """
a = np.array(onp.array([[1, 5, 2], [3, 3, 9]], dtype='int32'))
out = (np.delete(a, np.array([0, 5, -1, 9], dtype='int64')), np.delete(a, slice(0, None, 2), axis=1),
       np.delete(a, 1, axis=1))
""",
    "insert_casts_values_to_the_array_dtype": """
a = np.array(onp.array([[1, 5, 2], [3, 3, 9]], dtype='int32'))
out = (np.insert(a, np.array([0, 2], dtype='int64'), np.array([7.5, 8.]), axis=1),
       np.insert(a, slice(0, 2), np.array([[7.], [8.]]), axis=1), np.insert(a, 1, 4.0))
""",
    "unique_with_indices_inverse_counts": """
a = np.array(onp.array([[1, 5, 2], [3, 3, 9]], dtype='int32'))
out = np.unique(a, True, True, True)
""",
    "unique_along_an_axis": "out = np.unique(np.array([[1., 2., 1.], [3., 9., 3.]]), axis=1, return_counts=True)",
    "bincount_plain_and_weighted": """
x = np.array(onp.array([1, 3, 3], dtype='int32'))
out = (np.bincount(x), np.bincount(x, np.array([0.5, 1., 2.]), 6))
""",
    "percentile_and_quantile": """
a = np.array(onp.array([[1, 5, 2], [3, 3, 9]], dtype='int32'))
out = (np.percentile(a, 50), np.percentile(a, np.array([10., 60.]), axis=1),
       np.quantile(a, 0.3, axis=0, keepdims=True), np.percentile(a.astype('float64'), 25, interpolation='lower'))
""",
    "polyval_and_its_gradient": """
p = np.array([1., 2., 3.]); x = np.array([2., -1.])
p.attach_grad(); x.attach_grad()
with autograd.record():
    y = np.polyval(p, x)
y.backward()
out = (y, p.grad, x.grad)
""",
    "ediff1d_with_begin_and_end_and_gradient": """
a = np.array([[1., 4.], [9., 16.]]); b = np.array([7., 8.])
a.attach_grad(); b.attach_grad()
with autograd.record():
    y = np.ediff1d(a, to_end=b, to_begin=-1) * np.arange(6)
y.backward()
out = (y, a.grad, b.grad)
""",
    "resize_repeats_the_data": """
a = np.array(onp.array([[1, 5, 2], [3, 3, 9]], dtype='int32'))
out = (np.resize(a, (2, 5)), np.resize(a, 4))
""",
    "diag_indices_from_and_unravel_index": """
out = (np.diag_indices_from(np.ones((3, 3))), np.unravel_index(np.array(onp.array([5, 7], dtype='int32')), (3, 4)))
""",
    "average_weighted_returned_and_gradient": """
a = np.array([[1., 5., 2.], [3., 3., 9.]]); w = np.array([1., 2., 3.])
a.attach_grad(); w.attach_grad()
with autograd.record():
    avg, wsum = np.average(a, axis=1, weights=w, returned=True)
avg.backward()
out = (avg, wsum, a.grad, w.grad, np.average(np.array(onp.array([1, 2], dtype='int32'))))
""",
    "hybridized_np_functions_with_operators": """
class Net(HybridBlock):
    def hybrid_forward(self, F, a, w):
        parts = F.np.hsplit(a, 3)
        return (F.np.unique(a), F.np.average(a, axis=1, weights=w), parts[1], F.np.polyval(w, a),
                F.np.full((2, 3), w), F.np.linalg.pinv(a, w[0]), F.np.ediff1d(a, to_begin=2.0))
net = Net(); net.hybridize()
a = np.array([[1., 5., 2.], [3., 3., 9.]]); w = np.array([1., 2., 3.])
out = tuple(net(a, w))
""",
    "array_split_into_unequal_sections_hybridized": """
class Net(HybridBlock):
    def hybrid_forward(self, F, a):
        return F.np.array_split(a, 3)
net = Net(); net.hybridize()
out = tuple(net(np.arange(5)))
""",
    "constraint_check": """
class Net(HybridBlock):
    def hybrid_forward(self, F, x, ok):
        return x * F.npx.constraint_check(ok, 'violated')
net = Net(); net.hybridize()
out = net(np.array([1., 2.]), np.ones((2,), dtype='bool'))
""",
    "constraint_check_violated": "out = npx.constraint_check(np.zeros((2,), dtype='bool'), 'violated')",
    "sort_and_squeeze_of_a_zero_dim_array": """
a = np.array(3.)
out = (np.sort(a, axis=None), np.argsort(a, axis=None), np.squeeze(a, axis=-1), np.squeeze(a, 0))
""",
    "where_gradient_of_zero_dim_operands": """
x = np.array(2.); y = np.array([1., 2.])
x.attach_grad(); y.attach_grad()
with autograd.record():
    z = np.where(np.array([1., 0.]), x, y)
z.backward()
out = (x.grad, y.grad)
""",
    "sample_n_puts_the_batch_shape_first_hybridized": """
class Net(HybridBlock):
    def hybrid_forward(self, F, lo, hi):
        return F.npx.random.uniform_n(lo, hi, batch_shape=(3,)), F.npx.random.normal_n(lo, hi, batch_shape=2)
net = Net(); net.hybridize()
u, n = net(np.zeros((2, 2)), np.ones((2, 2)))
out = (u.shape, n.shape, npx.random.uniform_n(batch_shape=(4,)).shape)
""",
    "samplers_hybridized_with_number_parameters": """
class Net(HybridBlock):
    def hybrid_forward(self, F, x):
        return x + F.np.random.gamma(1, size=(2,)), x + F.np.random.pareto(1.0, size=(2,))
net = Net(); net.hybridize()
out = tuple(o.shape for o in net(np.ones(())))
""",
    "linspace_integers_truncate_and_retstep": """
out = (np.linspace(-2, 4, 7, dtype='int32'), np.linspace(0, 1, 10, dtype='int32'),
       np.linspace(0.0, 1.0, 5, retstep=True)[0])
""",
    "linspace_refuses_a_negative_num": "out = np.linspace(0, 10, -1)",
    "divide_refuses_where": "out = np.divide(np.ones((2,)), np.ones((2,)), where=False)",
    "integer_mod_has_a_zero_gradient": """
a = np.array(onp.array([7, 9], dtype='int32')); b = np.array(onp.array([2, 4], dtype='int32'))
a.attach_grad(); b.attach_grad()
with autograd.record():
    y = np.mod(a, b)
y.backward()
out = (y, a.grad, b.grad)
""",
    "mean_in_an_integer_dtype_accumulates_in_it": """
x = np.array(onp.array([[100, 120], [90, -5]], dtype='int8'))
out = (np.mean(x, dtype='int8'), np.mean(x, axis=0, dtype='int8'), np.mean(x, dtype='int32'))
""",
    "nan_to_num_without_copy_writes_in_place": """
x = np.array([onp.nan, onp.inf, -1.0])
np.nan_to_num(x, copy=False, nan=5.0, posinf=9.0)
out = x
""",
    "weighted_choice_hybridized": """
class Net(HybridBlock):
    def hybrid_forward(self, F, a, p):
        return F.np.random.choice(a, size=(3,), p=p)
net = Net(); net.hybridize()
out = net(np.array([1., 2., 3.]), np.array([0., 1., 0.]))
""",
    "multinomial_of_no_categories": "out = np.random.multinomial(5, [])",
    "setitem_of_a_recorded_value_is_recorded": """
x = np.zeros((2, 3)); y = np.array([1., 2., 3.]); y.attach_grad()
with autograd.record():
    x[1] = y
    z = (x * np.array([[1., 1., 1.], [2., 3., 4.]])).sum()
z.backward()
out = y.grad
""",
    "hybridized_comparison_in_a_recorded_graph": """
class Net(HybridBlock):
    def hybrid_forward(self, F, a, b):
        return a > b
net = Net(); net.hybridize()
a = np.array([1., 2.]); b = np.array([2., 1.]); a.attach_grad(); b.attach_grad()
with autograd.record():
    y = net(a, b)
y.backward()
out = (y, a.grad, b.grad)
""",
    "dot_gradient_for_higher_ranks": """
a = np.arange(24).reshape(2, 3, 4) / 10; b = np.arange(40).reshape(2, 4, 5) / 10
v = np.array([1., 2., 3., 4.])
for t in (a, b, v):
    t.attach_grad()
with autograd.record():
    y = (np.dot(a, b) * 2).sum() + np.dot(a, v).sum()
y.backward()
out = (a.grad, b.grad, v.grad)
""",
    "tril_gradient_of_a_vector": """
x = np.array([1., 2., 3.]); x.attach_grad()
with autograd.record():
    y = (np.tril(x, -1) * np.array(onp.arange(9.).reshape(3, 3))).sum()   # float32 * float64
y.backward()
out = x.grad
""",
    "slogdet_and_det_of_one_matrix_are_zero_dim": """
m = np.array([[2., 1.], [1., 3.]])
out = (np.linalg.slogdet(m)[0].shape, np.linalg.det(m).shape)
""",
    "weibull_refuses_a_zero_parameter": "out = np.random.weibull(a=0)",
    "solve_and_cholesky_hybridized": """
class Net(HybridBlock):
    def hybrid_forward(self, F, a, b):
        return F.np.linalg.solve(a, b), F.np.linalg.cholesky(a)
net = Net(); net.hybridize()
out = tuple(net(np.array([[4., 1.], [1., 3.]]), np.array([[1.], [2.]])))
""",
    "npx_reshape_reverse_reads_a_split_from_the_right": """
x = np.zeros((8, 5, 4, 6))
out = (npx.reshape(x, (-4, -1, 3, -6), reverse=True).shape, npx.reshape(np.zeros((64,)), (-6, 16, -1)).shape)
""",
}
