"""More of ruff's habits: `rule`, `--fix-only`, `--exit-non-zero-on-fix`, `[ ]` rows of
`--statistics`, flake8's file-level noqa, and a syntax error reported in any file."""
from __future__ import annotations

import json
import subprocess
import sys

from transpile_helpers import block, cli  # noqa: F401  (cli is a fixture)

AUG = block("y = F.relu(x)\ny += 1\nreturn y")                # HY002, safe fix
CONCRETE = block("v = x.asnumpy()\nreturn F.relu(x) * float(v.sum())")  # HY001, no fix


def _standalone(args, cwd):
    """The `hybridize-check` entry point itself (`rule` is dispatched there, before paths)."""
    code = "import sys; from hybridize.cli import check_main; sys.argv[0] = 'hybridize-check'; check_main()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_rule_explains_one_rule_and_all_rules(tmp_path):
    one = _standalone(["rule", "hy002"], tmp_path)
    assert one.returncode == 0 and one.stdout.startswith("HY002 (inplace-augmented-assignment): ")
    every = _standalone(["rule", "--all", "--output-format", "json"], tmp_path)
    from hybridize.transpile.rules import ALL_RULES
    assert [r["code"] for r in json.loads(every.stdout)] == list(ALL_RULES)


def test_rule_refuses_an_unknown_code_in_one_line(tmp_path):
    proc = _standalone(["rule", "HY999"], tmp_path)
    assert proc.returncode != 0 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "unknown rule code 'HY999'" in proc.stderr


def test_fix_only_fixes_without_reporting_what_remains(cli, tmp_path):
    (tmp_path / "a.py").write_text(AUG)
    (tmp_path / "b.py").write_text(CONCRETE)
    code, out, err = cli(["--isolated", "--fix-only", "."], cwd=tmp_path)
    assert code == 0 and out == "" and err == "Fixed 1 error.\n"
    assert "y = y + 1" in (tmp_path / "a.py").read_text()


def test_exit_non_zero_on_fix_fails_when_a_file_changed(cli, tmp_path):
    (tmp_path / "a.py").write_text(AUG)
    code, out, _ = cli(["--isolated", "--fix", "--exit-non-zero-on-fix", "a.py"], cwd=tmp_path)
    assert code == 1 and "(1 fixed, 0 remaining)" in out
    code, _, _ = cli(["--isolated", "--fix", "--exit-non-zero-on-fix", "a.py"], cwd=tmp_path)
    assert code == 0  # nothing left to change


def test_statistics_marks_unfixable_rows(cli, tmp_path):
    (tmp_path / "a.py").write_text(AUG)
    (tmp_path / "b.py").write_text(CONCRETE)
    _, out, _ = cli(["--isolated", "--statistics", "."], cwd=tmp_path)
    assert sorted(out.splitlines())[:2] == ["1\tHY001\t[ ] concrete-value", "1\tHY002\t[*] inplace-augmented-assignment"]


def test_flake8_file_level_noqa_exempts_the_file(cli, tmp_path):
    (tmp_path / "m.py").write_text("# flake8: noqa\n" + CONCRETE)
    code, out, _ = cli(["--isolated", "--output-format", "concise", "m.py"], cwd=tmp_path)
    assert (code, out.strip()) == (0, "All checks passed!")


def test_a_file_python_rejects_is_hy000_with_or_without_hybrid_forward(cli, tmp_path):
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    (tmp_path / "fine.py").write_text("x = 1\n")
    code, out, _ = cli(["--isolated", "--output-format", "concise", "."], cwd=tmp_path)
    assert code == 1
    assert out.splitlines()[0].startswith("broken.py:1:") and " HY000 syntax error" in out
    assert "fine.py" not in out


def _two_files(tmp_path):
    (tmp_path / "a.py").write_text(AUG)
    (tmp_path / "b.py").write_text(CONCRETE)


def test_gitlab_format_is_code_quality_json_with_stable_fingerprints(cli, tmp_path):
    _two_files(tmp_path)
    _, out, _ = cli(["--isolated", "--output-format", "gitlab", "."], cwd=tmp_path)
    issues = json.loads(out)
    assert [(i["check_name"], i["location"]["path"], i["severity"]) for i in issues] == \
        [("HY002", "a.py", "major"), ("HY001", "b.py", "major")]
    (tmp_path / "b.py").write_text("\n\n" + CONCRETE)  # lines move, identity stays
    _, moved, _ = cli(["--isolated", "--output-format", "gitlab", "."], cwd=tmp_path)
    assert [i["fingerprint"] for i in json.loads(moved)] == [i["fingerprint"] for i in issues]


def test_junit_format_is_xml_with_one_failure_per_finding(cli, tmp_path):
    import xml.etree.ElementTree as ET
    _two_files(tmp_path)
    _, out, _ = cli(["--isolated", "--output-format", "junit", "."], cwd=tmp_path)
    root = ET.fromstring(out)
    assert root.get("failures") == "2"
    assert [s.get("name") for s in root.iter("testsuite")] == ["a.py", "b.py"]
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    _, clean, _ = cli(["--isolated", "--output-format", "junit", "."], cwd=tmp_path)
    assert ET.fromstring(clean).get("failures") == "0"


def test_line_formats(cli, tmp_path):
    _two_files(tmp_path)
    expected = {
        "pylint": ["a.py:8: [HY002] ", "b.py:7: [HY001] "],
        "azure": ["##vso[task.logissue type=error;sourcepath=a.py;linenumber=8;columnnumber=9;code=HY002;]",
                  "##vso[task.logissue type=error;sourcepath=b.py;linenumber=7;columnnumber=13;code=HY001;]"],
        "grouped": ["a.py:", "  8:9 HY002 [*] ", "", "b.py:", "  7:13 HY001 ", ""],
    }
    for fmt, starts in expected.items():
        _, out, _ = cli(["--isolated", "--output-format", fmt, "."], cwd=tmp_path)
        lines = out.splitlines()[:len(starts)]
        assert [line[:len(s)] for line, s in zip(lines, starts)] == starts, fmt


def test_json_lines_and_rdjson_carry_the_fix_edits(cli, tmp_path):
    _two_files(tmp_path)
    _, out, _ = cli(["--isolated", "--output-format", "json-lines", "."], cwd=tmp_path)
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["code"] for r in rows] == ["HY002", "HY001"]
    assert rows[0]["fix"]["edits"][0]["content"] == "y = y + 1"
    _, out, _ = cli(["--isolated", "--output-format", "rdjson", "."], cwd=tmp_path)
    doc = json.loads(out)
    assert doc["source"]["name"] == "hybridize-check"
    first = doc["diagnostics"][0]
    assert (first["code"]["value"], first["location"]["path"], first["suggestions"][0]["text"]) == \
        ("HY002", "a.py", "y = y + 1")


def test_diff_is_never_mixed_into_a_machine_format(cli, tmp_path):
    (tmp_path / "a.py").write_text(AUG)
    code, out, err = cli(["--isolated", "--diff", "--output-format", "json", "a.py"], cwd=tmp_path)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--diff prints a unified diff and cannot be combined with --output-format json" in err
    assert (tmp_path / "a.py").read_text() == AUG


def test_ruff_keeps_our_noqa_codes_when_told_they_are_external(tmp_path):
    import shutil
    import pytest
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    text = "import os  # noqa: F401, HY010\ny = 1  # noqa: HY010\n"
    (tmp_path / "m.py").write_text(text)
    (tmp_path / "pyproject.toml").write_text('[tool.ruff.lint]\nexternal = ["HY"]\n')   # as docs/checker.md says
    proc = subprocess.run([ruff, "check", "--select", "RUF100,F401", "--fix", "m.py"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "m.py").read_text() == text
