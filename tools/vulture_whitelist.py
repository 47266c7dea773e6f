"""Names vulture cannot see used (``.ci/run`` runs vulture with ``[tool.vulture]`` of pyproject.toml,
which lists this file). Registered by decorator or at import, read by name, or parameters that
MXNet's signatures have and the runtime accepts without needing them."""
from typing import Any

from hybridize.runtime.graph.emit import conv, dense, nhwc, train
from hybridize.runtime.graph.kernels.conv import background, dw, gemm, group, wino, wino4

conv._emit_conv  # @emitter
nhwc._emit_layout, nhwc._emit_pool, nhwc._emit_dense, nhwc._emit_affine, nhwc._emit_act  # @emitter
nhwc._emit_add, nhwc._emit_concat, nhwc._emit_reshape  # @emitter
train._emit_bn_train, train._emit_bn_train_bwd, train._emit_maxpool_bwd, train._emit_dgrad  # @emitter
train._emit_wgrad, train._emit_backward_activation, train._emit_add_n  # @emitter
train._emit_bn_train_cf, train._emit_bn_train_bwd_cf, train._emit_conv_cf, train._emit_maxpool_cf  # @emitter
train._emit_maxpool_bwd_cf, dense._emit_backward_fc  # @emitter
train._emit_conv_sl, train._emit_bn_train_sl, train._emit_bn_train_bwd_sl, train._emit_maxpool_sl  # @emitter
train._emit_maxpool_bwd_sl, train._emit_dgrad_sl, train._emit_wgrad_sl  # @emitter
train._emit_pool_taps_sl, train._emit_maxpool_bwd_taps_sl  # @emitter
dw.ALGO, gemm.ALGO, group.ALGO, wino.ALGO, wino4.ALGO  # register(ConvAlgo(...))
background._stop  # @atexit.register

from hybridize.runtime.graph.ir import Node

Node.is_variable  # the autograd engine's (runtime/_autograd_engine.py)

_: Any = None  # stands for the functions whose parameters are named below
# MXNet 1.9.1's signatures: accepted, not needed on numpy (no GPU, no sparse storage, no download retries)
_.output_grads  # autograd.Function.backward(self, *output_grads): overridden by users
_.target_dtype  # contrib.amp.list_*_ops(target_dtype)
_.retries, _.verify_ssl  # gluon.utils.download, test_utils.download
_.std_a  # io.ImageDetRecordIter
_.ignore_sparse  # KVStore.pull
_.always_copy  # nd.concatenate
_.max_work  # np.may_share_memory
_.og_sign  # the gradient rule of slogdet: the sign's head gradient is zero by definition
_.args_lrscale  # Optimizer.set_lr_scale (deprecated in MXNet, a no-op there too)
_.density, _.distribution, _.modifier_func, _.shuffle_csr_indices  # test_utils.rand_ndarray
_.mismatches, _.grad_stype_dict, _.grad_stypes  # test_utils.assert_almost_equal, check_numeric_gradient, ...
_.gpu_dev_id  # util.get_gpu_memory
_.signum  # signal handlers' signature (tests, tools/mxnet_unittests)
_.no_sgld_noise  # a pytest fixture requested for its effect
_.mtime_ns  # transpile/emit/imports.py: part of an lru_cache key (a changed file is read again)
