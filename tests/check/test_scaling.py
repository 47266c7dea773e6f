"""The checker's cost grows with the size of a method, not with findings x size.

No timing here (timings live in benchmarks/): the work a fix does is measured by what it parses.
A 2,000-line ``hybrid_forward`` with an ``x += 1`` every tenth line once re-rendered the whole
method for each of its 200 fixes (85 s); now each fix parses only its own statement.
"""
from __future__ import annotations

from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.convert import fixes


def long_method(lines: int) -> str:
    body = ["        x += 1" if i % 10 == 9 else "        x = F.relu(x)" for i in range(lines)]
    return ("from mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
            "    def hybrid_forward(self, F, x):\n" + "\n".join(body) + "\n        return x\n")


def _count_parsed_lines(monkeypatch) -> list[int]:
    parsed: list[int] = []
    real_lines = fixes._parse_lines

    def counting(lines, first, last):
        parsed.append(last - first + 1)
        return real_lines(lines, first, last)

    monkeypatch.setattr(fixes, "_parse_lines", counting)
    fixes._CACHE.clear()
    return parsed


def test_each_fix_parses_only_its_statement(monkeypatch):
    parsed = _count_parsed_lines(monkeypatch)
    found = check_source(long_method(2000), "long.py")
    assert len(found) == 200 and all(f.fix is not None and f.fix.edits for f in found)
    assert len(parsed) == 200 and sum(parsed) == 200  # one line each, never the method


def test_fixing_a_long_method_rewrites_every_statement_once():
    text, fixed, remaining = fix_source(long_method(600), "long.py", unsafe=True)
    assert fixed == 60 and remaining == []
    assert text.count("x = x + 1") == 60 and "+=" not in text


def test_a_fix_inside_a_one_line_compound_statement_falls_back_to_the_function():
    code = ("from mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
            "    def hybrid_forward(self, F, x):\n"
            "        y = F.relu(x)\n"
            "        if self.flag: pass\n"
            "        else: y += 1\n"
            "        return y\n")
    text, fixed, _ = fix_source(code, "m.py", unsafe=True)
    assert fixed == 1 and "        else: y = y + 1\n" in text


def test_continuation_lines_keep_their_block_indentation():
    code = ("from mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
            "    def hybrid_forward(self, F, x):\n"
            "        y = F.relu(x)\n"
            "        for i in range(2):\n"
            "            y += F.sigmoid(\n"
            "                x)\n"
            "        return y\n")
    text, fixed, _ = fix_source(code, "m.py", unsafe=True)
    assert fixed == 1
    assert "            y = y + F.sigmoid(\n                x)\n" in text
