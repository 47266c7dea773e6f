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
        return y + x[0]
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
