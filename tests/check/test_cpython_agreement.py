"""The checker and the transpiler agree with CPython on what is a valid module.

The verdict is the running interpreter's ``compile()``: a module it rejects is HY000 at its
file:line:col in both tools (one line, no traceback); a module it accepts is checked and
transpiled, even where libcst's own tokenizer is stricter.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

HEAD = b"from mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"

CASES = {
    # a form feed resets the indentation count: `return` lands in the class body
    "form_feed_in_indent": HEAD + b"        y = F.relu(x)\n    \x0c    return y\n",
    "global_after_assignment": HEAD + b"        y = F.relu(x)\n        global y\n        return y\n",
    "nonlocal_at_module_level": HEAD + b"        return x\n\n\nnonlocal z\n",
    "break_outside_loop": HEAD + b"        break\n        return x\n",
    "duplicate_argument": b"from mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
                          b"    def hybrid_forward(self, F, x, x):\n        return x\n",
    "continuation_at_eof_after_crlf": HEAD.replace(b"\n", b"\r\n") + b"        return x\r\n\\\r\n",
    "continuation_at_eof": HEAD + b"        return x\n\\",
}


def _cpython_error(data: bytes):
    try:
        compile(data, "m.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc
    return None


def _run(args, cwd):
    return subprocess.run([sys.executable, "-m", "hybridize.cli", *args], cwd=cwd, capture_output=True, text=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_both_tools_give_cpythons_verdict(name, tmp_path):
    data = CASES[name]
    (tmp_path / "m.py").write_bytes(data)
    error = _cpython_error(data)
    check = _run(["check", "--isolated", "--output-format", "concise", "m.py"], tmp_path)
    transpile = _run(["transpile", "m.py", "-o", "out"], tmp_path)
    for proc in (check, transpile):
        assert "Traceback" not in proc.stdout + proc.stderr
        assert "internal error" not in proc.stdout + proc.stderr
    if error is None:
        assert check.returncode == 0, check.stdout
        assert transpile.returncode == 0, transpile.stderr
        out = (tmp_path / "out" / "m.py").read_bytes()
        compile(out, "out.py", "exec", dont_inherit=True)
    else:
        where = f"m.py:{error.lineno}:{error.offset}:"
        assert check.returncode == 1
        assert check.stdout.splitlines()[0] == f"{where} HY000 syntax error: {error.msg}"
        assert transpile.returncode != 0 and not (tmp_path / "out").exists()
        assert f"{where} syntax error: {error.msg}" in transpile.stderr
        assert len([line for line in transpile.stderr.splitlines() if "error:" in line]) == 1
