"""Bad input never produces a traceback: HY000 findings for unparsable files, exit 2 for IO."""
from __future__ import annotations

import pytest

from transpile_helpers import block, run_real


def _no_traceback(proc):
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout


def test_syntax_error_is_an_hy000_finding_and_exit_1(tmp_path):
    (tmp_path / "broken.py").write_text(block("return x") + "\ndef later(:\n    pass\n")
    proc = run_real(["--format", "concise", "broken.py"], cwd=tmp_path)
    _no_traceback(proc)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == "broken.py:9:11: HY000 syntax error: invalid syntax"


def test_non_utf8_bytes_are_reported_where_they_are(tmp_path):
    data = block("return x").encode() + b"# caf\xe9\n"
    (tmp_path / "latin.py").write_bytes(data)
    proc = run_real(["--format", "concise", "latin.py"], cwd=tmp_path)
    _no_traceback(proc)
    assert proc.returncode == 1
    assert proc.stdout.startswith("latin.py:8:6: HY000 cannot decode as utf-8: byte 0xe9 is invalid")


def test_a_declared_latin1_file_is_decoded(tmp_path):
    data = b"# -*- coding: latin-1 -*-\n" + block("return x  # caf\xe9".encode("latin-1").decode("latin-1")).encode("latin-1")
    (tmp_path / "latin.py").write_bytes(data)
    assert run_real(["latin.py"], cwd=tmp_path).returncode == 0


def test_binary_file_named_py_is_reported_not_crashed_on(tmp_path):
    (tmp_path / "blob.py").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00hybrid_forward\x00\xff")
    proc = run_real(["--format", "concise", "blob.py"], cwd=tmp_path)
    _no_traceback(proc)
    assert proc.returncode == 1
    assert "HY000 binary file: contains a NUL byte" in proc.stdout


def test_binary_file_without_the_marker_is_reported_too(tmp_path):
    # CPython rejects it whether or not it mentions hybrid_forward, and so does the checker (as ruff)
    (tmp_path / "blob.py").write_bytes(b"\x00\x01\x02\xff")
    proc = run_real(["--format", "concise", "blob.py"], cwd=tmp_path)
    _no_traceback(proc)
    assert proc.returncode == 1 and "blob.py:1:1: HY000 binary file" in proc.stdout


def test_missing_path_is_exit_2_with_a_one_line_message(tmp_path):
    proc = run_real(["does_not_exist.py"], cwd=tmp_path)
    _no_traceback(proc)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "hybridize-check: error: does_not_exist.py: no such file or directory"


def test_unreadable_file_is_exit_2(tmp_path):
    import os
    target = tmp_path / "secret.py"
    target.write_text(block("return x"))
    target.chmod(0)
    try:
        if os.access(target, os.R_OK):
            pytest.skip("running as a user who can read anything")
        proc = run_real(["secret.py"], cwd=tmp_path)
        _no_traceback(proc)
        assert proc.returncode == 2 and "secret.py: cannot read" in proc.stderr
    finally:
        target.chmod(0o644)


@pytest.mark.parametrize("setup", ["empty", "no_python"])
def test_empty_directory_and_directory_without_python_files_pass(tmp_path, setup, cli):
    if setup == "no_python":
        (tmp_path / "README.md").write_text("hybrid_forward\n")
        (tmp_path / "data.json").write_text("{}")
    code, out, err = cli([str(tmp_path)])
    assert (code, out, err) == (0, "All checks passed!\n", "")


def test_a_50000_line_generated_file(tmp_path):
    lines = [block("y = F.relu(x)\ny += 1\nreturn y")]
    lines += [f"def f{i}(a):\n    return a + {i}\n" for i in range(16_664)]
    text = "\n".join(lines)
    assert text.count("\n") >= 50_000
    (tmp_path / "big.py").write_text(text)
    proc = run_real(["--format", "concise", "big.py"], cwd=tmp_path)
    _no_traceback(proc)
    assert proc.returncode == 1 and "big.py:8:9: HY002" in proc.stdout


def test_deeply_nested_expression_beyond_python_is_hy000(tmp_path):
    deep = "y = " + "(" * 300 + "x" + ")" * 300
    (tmp_path / "deep.py").write_text(block(f"{deep}\nreturn y"))
    proc = run_real(["--format", "concise", "deep.py"], cwd=tmp_path)
    _no_traceback(proc)
    assert proc.returncode == 1 and "HY000 syntax error: too many nested parentheses" in proc.stdout


def test_deep_but_valid_expressions_are_analysed_or_reported(tmp_path):
    chain = "y = " + " + ".join(["x"] * 900)
    nested = "z = " + "F.relu(" * 90 + "x" + ")" * 90
    (tmp_path / "chain.py").write_text(block(f"{chain}\n{nested}\nreturn y.asnumpy() + z"))
    proc = run_real(["--format", "concise", "chain.py"], cwd=tmp_path)
    _no_traceback(proc)
    assert proc.returncode == 1
    assert ("HY001" in proc.stdout) or ("HY000" in proc.stdout and "nested too deeply" in proc.stdout)


def test_init_call_too_deep_to_unparse_is_still_hy000():
    """The analysis reads ``__init__`` attributes lazily (checkspeed); a creating call long enough
    that unparsing it could exhaust the recursion limit is still read up front, as before, so the
    verdict does not depend on whether ``hybrid_forward`` reads the attribute."""
    from hybridize.transpile.check.checker import check_source

    def module(terms: int) -> str:
        return ("from mxnet import nd\nfrom mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n"
                "    def __init__(self):\n        super().__init__()\n"
                f"        self.w = nd.array({'+'.join(['1'] * terms)})\n\n"
                "    def hybrid_forward(self, F, x):\n        return x + 1\n")

    deep = check_source(module(6000), "deep.py")
    assert [(f.code, f.message) for f in deep] == [("HY000", "cannot analyse: code is nested too deeply")]
    assert check_source(module(300), "shallow.py") == []
