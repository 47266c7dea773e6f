"""Names vulture cannot see used: ``vulture runtime tests benchmarks tools --min-confidence 60``
(``tools/`` holds this file). Registered by decorator or at import, read by name."""
from hybridize.runtime.graph.emit import conv, nhwc
from hybridize.runtime.graph.kernels.conv import background, dw, gemm, group, wino, wino4

conv._emit_conv  # @emitter
nhwc._emit_layout, nhwc._emit_pool, nhwc._emit_dense, nhwc._emit_affine, nhwc._emit_act  # @emitter
nhwc._emit_add, nhwc._emit_concat, nhwc._emit_reshape  # @emitter
dw.ALGO, gemm.ALGO, group.ALGO, wino.ALGO, wino4.ALGO  # register(ConvAlgo(...))
background._stop  # @atexit.register

from hybridize.runtime.graph.ir import Node

Node.is_variable  # the autograd engine's (runtime/_autograd_engine.py, being landed)
