"""``mx.np.linalg``: NumPy's linear algebra functions, filled from the np table
(``runtime/_numpy_table.py``): norm, svd, inv, det, slogdet, solve, cholesky, eigh, eigvalsh, eig,
eigvals, pinv, tensorinv, tensorsolve, matrix_rank, matrix_power, multi_dot."""
