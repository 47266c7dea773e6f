"""The analysis is dataflow, not pattern matching: what is a tensor, and why, decides a finding.

Each test states one property of the analysis with the smallest program showing it.
"""
from __future__ import annotations

import ast

from transpile_helpers import block, codes, findings, rows

from hybridize.transpile.analysis import analyze_text
from hybridize.transpile.analysis.values import Kind


# -- what is static ----------------------------------------------------------------------------
def test_configuration_on_self_is_static():
    assert codes(block("""
        if self.use_bias:
            x = x + self.scale
        for layer in self.layers:
            x = layer(x)
        n = len(self.layers)
        assert self.units > 0, "units"
        return x * n
    """)) == []


def test_none_tests_isinstance_and_training_mode_are_static():
    source = block("""
        from mxnet import autograd
        if bias is None and autograd.is_training():
            return x
        if isinstance(self.act, str) or not self.flag:
            return F.relu(x)
        return x + bias
    """, signature="self, F, x, bias=None")
    assert codes(source) == []


def test_same_construct_on_data_is_reported():
    assert rows(block("""
        y = x.sum()
        if y > 0:
            return x
        return -x
    """), "HY004") == [(8, "HY004")]


# -- what is a tensor, and the message that says why -----------------------------------------
def test_message_names_the_tensor_and_its_origin():
    source = block("""
        y = self.fc(x)
        return y.asnumpy()
    """, init="self.fc = nn.Dense(2)")
    [finding] = findings(source)
    assert finding.code == "HY001"
    assert "`y` is a tensor: it is the result of `self.fc(x)` on line 10" in finding.message
    assert (finding.start.row, finding.start.column, finding.end.column) == (11, 16, 27)


def test_tensorness_flows_through_assignment_arithmetic_methods_and_aliases():
    source = block("""
        a = F.relu(x)
        b = a * 2 + 1
        c = b.transpose()
        d = c
        return d[0]
    """)
    [finding] = findings(source)
    assert finding.code == "HY010"
    assert "`d` is a tensor: it is the result of `b.transpose()` on line 9" in finding.message


def test_multi_output_results_may_be_indexed_iterated_and_unpacked():
    assert codes(block("""
        a, b = F.split(x, num_outputs=2)
        parts = F.SliceChannel(x, num_outputs=3)
        first = parts[0]
        outs = [F.relu(p) for p in parts]
        states = F.RNN(x, a, b, state_outputs=True)
        return first + outs[1] + states[1]
    """)) == []


def test_a_list_of_tensors_is_a_list_not_a_tensor():
    assert codes(block("""
        outs = []
        for i in range(3):
            outs.append(F.relu(x) * i)
        outs[0] = outs[0] + 1
        total = len(outs)
        first, *rest = outs
        return F.concat(*outs, dim=1) / total
    """)) == []


def test_one_tensor_unpacked_or_starred_is_iteration():
    assert rows(block("""
        y = F.relu(x)
        a, b = y
        z = F.concat(*y, dim=0)
        return a + b + z
    """), "HY005") == [(8, "HY005"), (9, "HY005")]


# -- inputs: a tensor or a list of tensors, decided by use -----------------------------------
def test_an_input_used_only_as_a_list_is_a_list():
    source = block("""
        h = F.FullyConnected(x, num_hidden=4)
        return h + states[0] * states[1], [states[0]]
    """, signature="self, F, x, states")
    assert codes(source) == []


def test_an_input_used_as_a_tensor_is_a_tensor_everywhere():
    source = block("""
        y = x * 2
        return F.broadcast_add(y, x[0])
    """)
    [finding] = findings(source)
    assert finding.code == "HY010"
    assert "`x` is a tensor: it is an input of `hybrid_forward` (used as a tensor in `x * 2` on line 7)" \
        in finding.message


def test_results_of_child_blocks_may_be_tuples():
    assert codes(block("""
        output, states = self.cell(x, states)
        return output * 2, states
    """, signature="self, F, x, states")) == []


# -- branches that only run imperatively -----------------------------------------------------
def test_imperative_only_branches_are_not_symbolic_code():
    source = block("""
        if F is nd:
            print(x.asnumpy(), x.shape)
        if isinstance(x, nd.NDArray):
            n = len(x)
        y = x.reshape((-1,)) if F is nd else F.reshape(x, (-1,))
        if F is not nd:
            y = y + 1
        else:
            y = y.asnumpy()
        return y
    """)
    assert codes(source) == []


def test_symbolic_only_branch_is_checked():
    source = block("""
        from mxnet import sym
        if F is sym:
            y = x.asnumpy()
        return x
    """)
    assert codes(source) == ["HY001"]


# -- interprocedural ---------------------------------------------------------------------------
def test_methods_of_the_same_class_are_followed_with_tensor_arguments():
    source = block("""
        return self._helper(F, x)
    """) + '''
    def _helper(self, F, data):
        if data.sum() > 0:
            return data
        return F.relu(data)
'''
    [finding] = findings(source)
    assert (finding.code, finding.start.row) == ("HY004", 10)
    assert finding.context == ("reached from `hybrid_forward` via `self._helper(F, x)` on line 7",)
    assert "`data.sum() > 0`" in finding.message


def test_module_helpers_taking_F_and_nested_functions_and_lambdas_are_followed():
    source = ("from mxnet.gluon import nn\n\n\ndef _scale(F, t):\n    return t.asnumpy()\n\n\n"
              "class Net(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
              "        def inner(v):\n            return float(v)\n"
              "        twice = lambda v: v * 2\n"
              "        y = twice(F.relu(x))\n"
              "        return _scale(F, y) + inner(y)\n")
    assert rows(source) == [(5, "HY001"), (11, "HY009")]


def test_aliases_of_F_operators_build_tensors():
    source = block("""
        act = F.npx.activation if self.np else F.Activation
        y = act(x, act_type='relu')
        op = getattr(F, self.op_name)
        z = op(y)
        return z[0]
    """)
    assert codes(source) == ["HY010"]


# -- the library object the transpiler reads -------------------------------------------------
def test_value_of_answers_which_expressions_are_tensors():
    source = block("""
        n = self.units
        y = F.relu(x) * n
        return y
    """)
    result = analyze_text(source)
    [fn] = result.functions
    assert fn.class_name == "Net"
    names = {}
    for node in ast.walk(fn.span.node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            value = result.value_of(node)
            if value is not None:
                names.setdefault(node.id, value.kind)
    assert names["n"] is Kind.STATIC
    assert names["y"] is Kind.TENSOR
    assert names["F"] is Kind.FNS
    assert result.value_at(8, 13, 8, 22).is_tensor  # F.relu(x)


def test_control_flow_operators_return_lists_of_outputs_and_states():
    source = block("""
        def step(data, states):
            h = F.relu(data + states[0])
            return h, [h]
        outs, new_states = F.contrib.foreach(step, x, [F.zeros((1,))])
        def cond(i, s):
            return i < 5
        def body(i, s):
            return i + 1, s * 2
        _, (i, s) = F.contrib.while_loop(cond, body, [F.zeros((1,)), outs], max_iterations=5)
        return outs, new_states, s
    """)
    assert codes(source) == []


def test_guards_with_the_mx_prefix_and_the_imperative_api_inside_them():
    source = block("""
        if isinstance(x, mx.nd.NDArray):
            x = x.reshape(x.shape[0], -1)
        if F is mx.nd:
            print(mx.nd.max(x).asscalar())
        return x.T
    """, header="import mxnet as mx\nfrom mxnet.gluon import nn\n\n\n")
    assert codes(source) == []


def test_lambdas_chosen_by_configuration_and_contrib_multi_output_ops():
    source = block("""
        match = F.contrib.bipartite_matching(x, threshold=0.5)
        if self.ascend:
            better = lambda a, b: a < b
        else:
            better = lambda a, b: a > b
        best = F.max(x, axis=-1)
        return F.where(better(F.pick(x, match[0], axis=-1), best), match[0], best)
    """)
    assert codes(source) == []


def test_shape_and_imperative_api_in_an_encoder_are_reported():
    source = block("""
        refs = F.repeat(refs.reshape((0, 1, -1)), axis=1, repeats=matches.shape[1])
        ids = F.pick(refs, matches, axis=2) + 1
        return F.where(x > 0.5, ids, nd.ones_like(ids) * -1)
    """, signature="self, F, x, matches, refs")
    assert rows(source) == [(7, "HY006"), (9, "HY007")]


# -- constructs met in real-world Gluon code (docs/checker-realworld.md) ---------------------
def test_tensor_methods_that_return_several_outputs_on_request():
    # gluon-cv CenterNetDecoder: ``x.topk(..., ret_typ='both')`` is (values, indices)
    source = block("""
        scores, indices = x.reshape((0, -1)).topk(k=self.topk, ret_typ='both')
        values = x.topk(k=2, ret_typ="value")
        a, b = values
        return scores + indices + a
    """)
    assert rows(source, "HY005") == [(9, "HY005")]


def test_isinstance_list_or_tuple_narrows_an_undecided_value():
    # gluon-nlp BERTModel._encode_sequence: ``[o.T for o in outputs] if a list, else outputs.T``
    source = block("""
        outputs, extra = self.encoder(x)
        if isinstance(outputs, (list, tuple)):
            outputs = [o.transpose((1, 0, 2)) for o in outputs]
        else:
            outputs = outputs.transpose((1, 0, 2))
        for state in states:
            if isinstance(state, list):
                state = F.stack(*state, axis=0)
            x = F.broadcast_add(x, F.sum(state))
        first = outputs[0] if isinstance(outputs, list) else outputs
        return outputs, x, first
    """, signature="self, F, x, *states")
    assert codes(source) == []


def test_not_isinstance_narrows_the_else_branch_and_data_is_still_checked():
    source = block("""
        y = F.relu(x)
        if not isinstance(states, list):
            n = len(states)
        else:
            n = len(states)
        return y * n + states
    """, signature="self, F, x, states")
    assert rows(source, "HY006") == [(9, "HY006")]


def test_symbol_api_in_the_symbolic_branch_of_a_guard_is_F():
    # gluon-nlp AWDRNN: ``if F == nd: ... else: begin_state = self.begin_state(func=sym.zeros)``
    source = block("""
        if F == nd:
            state = self.begin_state(batch_size=x.shape[1])
        else:
            state = self.begin_state(batch_size=0, func=sym.zeros)
        zeros = nd.zeros((1,)) if F is nd else sym.zeros((1,))
        return x + state + zeros + sym.ones((1,))
    """, header="from mxnet import nd, sym\nfrom mxnet.gluon import nn\n\n\n")
    assert rows(source) == [(12, "HY007")]


def test_what_follows_an_imperative_early_return_only_runs_while_tracing():
    source = block("""
        if F is nd:
            return nd.relu(x)
        return sym.relu(x)
    """, header="from mxnet import nd, sym\nfrom mxnet.gluon import nn\n\n\n")
    assert codes(source) == []


def test_code_after_refusing_to_trace_is_imperative_only():
    # gluon-ts DeepTPP: ``if F is mx.sym: raise ValueError("... doesn't support hybridization")``
    source = block("""
        if F is mx.sym:
            raise ValueError("no hybridization")
        batch = x.shape[0]
        return x.asnumpy()[:batch]
    """, header="import mxnet as mx\nfrom mxnet.gluon import nn\n\n\n")
    assert codes(source) == []
    source = block("""
        assert F is mx.nd, "imperative only"
        return x.asnumpy()
    """, header="import mxnet as mx\nfrom mxnet.gluon import nn\n\n\n")
    assert codes(source) == []


def test_a_guard_in_a_conjunction_decides_only_what_it_decides():
    # ``F is nd and d`` is false while tracing: its body is imperative-only. ``F is mx.sym and d``
    # is true only while tracing, but the ``else`` is traced too (when ``d`` is false).
    source = block("""
        if F is nd and self.debug:
            print(x.asnumpy())
        if F is mx.sym and self.flag:
            y = F.relu(x)
        else:
            y = x.asnumpy()
        return y
    """, header="import mxnet as mx\nfrom mxnet import nd\nfrom mxnet.gluon import nn\n\n\n")
    assert codes(source) == ["HY001"]


def test_a_returning_branch_does_not_flow_into_the_rest():
    source = block("""
        if self.flat:
            y = F.split(x, num_outputs=2)
            return y[0] + y[1]
        y = F.relu(x)
        return y[0]
    """)
    assert rows(source) == [(11, "HY010")]


def test_comparing_F_with_the_ndarray_submodule_is_an_imperative_guard():
    # gluon-face: ``x.reshape(y.shape) if F is nd.ndarray else F.reshape_like(x, y)``
    source = block("""
        return x.reshape(y.shape) if F is nd.ndarray else F.reshape_like(x, y)
    """, signature="self, F, x, y")
    assert codes(source) == []


def test_methods_of_objects_built_from_tensors_do_not_make_them_tensors():
    # gluon-ts DeepState: ``lds = LDS(...)``; ``ll, _, _ = lds.log_prob(x)`` returns a tuple
    source = block("""
        lds = LinearDynamicalSystem(F.relu(x), noise=x)
        ll, mean, cov = lds.log_prob(x)
        sample, _ = lds.sample.draw(x)
        return ll + mean.sum(axis=-1) + sample
    """, header="from mxnet.gluon import nn\nfrom gluonts.mx.distribution import LinearDynamicalSystem\n\n\n")
    assert codes(source) == []


def test_a_tensor_method_still_makes_an_undecided_value_a_tensor():
    source = block("""
        out = self.head(x)
        a, b = out.sum(axis=1)
        return a + b
    """)
    assert codes(source) == ["HY005"]


def test_parameter_data_read_in_hybrid_forward_is_imperative():
    # gluon-cv monodepth2 BackprojectDepth: ``F.batch_dot(inv_K, self.pix_coords.data())``
    source = block("""
        y = F.batch_dot(x, self.coords.data())
        return F.concat(y, self.ones.data(), dim=1) + self.scale.data() + coords
    """, init="""
        with self.name_scope():
            self.coords = self.params.get('coords', shape=(1, 3, 4), grad_req='null')
            self.ones = gluon.Constant('ones', nd.ones((1, 1, 4)))
        self.scale = SomethingElse()
    """, signature="self, F, x, coords", header="from mxnet import nd, gluon\nfrom mxnet.gluon import nn\n\n\n")
    [first, second] = findings(source)
    assert (first.code, first.start.row, second.code, second.start.row) == ("HY007", 13, "HY007", 14)
    assert first.message.startswith(
        "`self.coords.data()` is the NDArray of the Parameter declared in `__init__` by "
        "`self.params.get('coords', shape=(1, 3, 4), grad...` on line 9, which cannot be mixed")
    assert "take `ones` as a keyword argument of `hybrid_forward`" in second.message


def test_parameters_and_ndarrays_of_a_base_class_init_are_known():
    source = ("from mxnet import nd\nfrom mxnet.gluon import nn\n\n\n"
              "class Base(nn.HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.w = self.params.get('w', shape=(2,))\n        self.m = nd.ones((2,))\n\n\n"
              "class Net(Base):\n    def __init__(self):\n        super().__init__()\n        self.k = 3\n\n"
              "    def hybrid_forward(self, F, x):\n        return x * self.w.data() - self.m\n")
    assert rows(source) == [(18, "HY007"), (18, "HY007")]


def test_F_functions_that_only_the_ndarray_api_has():
    # gluon-face RangeLoss: ``mask = F.array(1. - np.greater_equal.outer(...))``
    source = block("""
        mask = F.array([1.0, 0.0])
        zeros = F.zeros((2,))
        if F is nd:
            zeros = F.empty((2,))
        return F.broadcast_mul(x, mask) + zeros + F.np.array([1.0])
    """)
    assert rows(source) == [(7, "HY007")]


def test_each_positional_argument_of_concat_is_one_tensor():
    # gluon-nlp CacheCell: ``len(history)`` where history is also ``F.concat(history, new, dim=0)``
    source = block("""
        n = len(history)
        history = F.concat(history, x, dim=0)
        parts = F.concat(*chunks, dim=0)
        return history, n, parts, len(chunks)
    """, signature="self, F, x, history, chunks")
    [finding] = findings(source)
    assert (finding.code, finding.start.row) == ("HY006", 7)
    assert "used as a tensor in `F.concat(history, x, dim=0)` on line 8" in finding.message


def test_shape_or_size_called_like_a_method_is_metadata():
    # imgclsmob LEDNet (ported from PyTorch): ``y2.size()[2] - y1.size()[2]``
    source = block("""
        y = F.relu(x)
        diff = y.size()[2] - x.size()[2]
        return F.pad(y, pad_width=(0, 0, 0, 0, 0, diff, 0, 0), mode='constant')
    """)
    assert codes(source) == ["HY006", "HY006"]


def test_python_random_draws_are_frozen_at_trace_time_mxnet_random_is_imperative():
    # imgclsmob ResDropResUnit: ``b = np.random.binomial(n=1, p=self.life_prob)`` under is_training()
    source = block("""
        if autograd.is_training():
            keep = random.random() < 0.5 and np.random.binomial(n=1, p=0.5)
            x = x * keep
        return x + mx.random.uniform(shape=(1,)) + F.random.uniform(shape=(1,))
    """, header="import random\nimport numpy as np\nimport mxnet as mx\nfrom mxnet import autograd\n"
                "from mxnet.gluon import nn\n\n\n")
    assert rows(source) == [(11, "HY008"), (11, "HY008"), (13, "HY007")]


def test_names_imported_from_the_nd_sym_and_contrib_apis():
    # a Faster R-CNN on GitHub: ``from mxnet.contrib.symbol import MultiProposal, ROIAlign``
    source = block("""
        proposals = MultiProposal(cls_prob=x, bbox_pred=x, im_info=x)
        return relu(proposals) + nd.relu(x) + F.relu(x)
    """, header="from mxnet import nd\nfrom mxnet.ndarray import relu\n"
                "from mxnet.contrib.symbol import MultiProposal\nfrom mxnet.gluon import nn\n\n\n")
    assert [(f.start.row, f.start.column, f.code) for f in findings(source)] == [
        (9, 21, "HY007"), (10, 16, "HY007"), (10, 34, "HY007")]
    assert "`MultiProposal` uses the symbolic API directly" in findings(source)[0].message


def test_a_method_handed_to_a_control_flow_operator_is_analysed():
    source = block("""
        regions, _ = F.contrib.foreach(self.step, [x, rois], [])
        return regions
    """, signature="self, F, x, rois") + '''
    def step(self, data, states):
        region = F.contrib.ROIAlign(data[0], data[1], pooled_size=(2, 2), spatial_scale=1.0)
        return region.asnumpy(), states
'''
    [finding] = findings(source)
    assert (finding.code, finding.start.row) == ("HY001", 12)
    assert finding.context == (
        "reached from `hybrid_forward` via `F.contrib.foreach(self.step, [x, rois], [])` on line 7",)


def test_parameters_of_child_layers_read_with_data():
    # weight tying done imperatively: ``F.FullyConnected(out, self.embedding.weight.data(), ...)``
    source = block("""
        out = self.embedding(x)
        extra = self.helper.table.data() + self.cfg.data()
        return F.FullyConnected(out, self.embedding.weight.data(), no_bias=True, num_hidden=10) + extra
    """, init="""
        self.embedding = nn.Embedding(10, 4)
        self.helper = Helper()
        self.cfg = 3
    """)
    [finding] = findings(source)
    assert (finding.code, finding.start.row, finding.start.column) == ("HY007", 14, 38)
    assert finding.message.startswith(
        "`self.embedding.weight.data()` is the NDArray of a Parameter of the layer created in `__init__` "
        "by `nn.Embedding(10, 4)` on line 8")
    assert "params=self.embedding.params" in finding.message


# -- single-tensor Gluon layers (``analysis/layers.py``) -------------------------------------------
LAYERS = "from mxnet import gluon\nfrom mxnet.gluon import nn\n\n\n"


def test_the_input_of_a_single_tensor_layer_is_a_tensor():
    # ``x``'s only other use is ``self.fc(x)``: a Dense takes one tensor, so ``x`` is one
    source = block("""
        y = self.fc(x)
        n = len(x)
        for row in x:
            y = y + row
        return y + x[0]
    """, init="self.fc = nn.Dense(3)", header=LAYERS)
    assert rows(source) == [(11, "HY006"), (12, "HY005"), (14, "HY010")]


def test_the_output_of_a_single_tensor_layer_is_a_tensor_and_chains_count():
    source = block("""
        y = self.fc(x)
        y[:, 0] += 1
        z = y[0].reshape(2, 3)
        return z
    """, init="self.fc = gluon.nn.Dense(3)", header=LAYERS)
    assert rows(source) == [(11, "HY003"), (12, "HY010"), (12, "HY011")]


def test_every_store_of_a_layer_output_on_self_is_reported():
    source = block("""
        self.features = []
        x = self.conv1(x)
        self.features.append(x)
        x = self.bn1(x)
        self.features.append(x)
        self.features.append(self.relu(self.features[-1]))
        self.features.append(self.layer1(self.pool(self.features[-1])))
        self.features.append(self.layer1(self.features[-1]))
        return self.features
    """, init="""
        self.conv1 = nn.Conv2D(8, 3)
        self.bn1 = nn.BatchNorm()
        self.relu = nn.Activation("relu")
        self.pool = nn.MaxPool2D()
        self.layer1 = nn.Conv2D(8, 3)
    """, header=LAYERS)
    assert rows(source) == [(row, "HY008") for row in (16, 18, 19, 20, 21)]


def test_an_attribute_that_may_hold_another_block_says_nothing():
    # one branch makes a Dense, the other a block of this file (which may return a tuple)
    source = block("""
        out = self.head(x)
        return out[0] + out[1]
    """, init="""
        if self.flag:
            self.head = nn.Dense(3)
        else:
            self.head = Pair()
    """, header=LAYERS)
    assert codes(source) == []
    # a container's output is whatever its children return; a list handed to a layer by
    # ``*args`` or with more than one argument is not the layer's one tensor
    source = block("""
        out = self.body(x)
        pair = self.fc(*x)
        return out[0] + pair[1]
    """, init="self.body = nn.HybridSequential()\nself.fc = nn.Dense(2)", header=LAYERS)
    assert codes(source) == []


def test_the_single_tensor_layers_are_layers_not_containers():
    from hybridize.transpile.analysis.layers import SINGLE_TENSOR_LAYERS

    assert {"Dense", "Conv2D", "BatchNorm", "Activation", "LayerNorm", "Embedding"} <= SINGLE_TENSOR_LAYERS
    assert not {"HybridSequential", "HybridConcurrent", "Identity", "HybridLambda"} & SINGLE_TENSOR_LAYERS
