"""The command line: formats, exit codes, summary, statistics, output files (ruff's conventions)."""
from __future__ import annotations

import json

import pytest

from transpile_helpers import block, run_real

BAD = block("""
    y = F.relu(x)
    y += 1
    return y.reshape(0, -1)
""")
GOOD = block("return F.relu(x)")


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "plain.py").write_text("print('no blocks here')\n")
    return tmp_path


def test_findings_exit_1_with_concise_lines_and_summary(cli, tree):
    code, out, err = cli(["--output-format", "concise", "bad.py", "good.py"], cwd=tree)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("bad.py:8:9: HY002 [*] in-place `+=` on tensor `y`")
    assert lines[1].startswith("bad.py:9:16: HY011 [*] `.reshape()` with 2 positional dimensions")
    assert lines[-1] == "Found 2 errors (2 fixable)."
    assert err == ""


def test_clean_files_exit_0(cli, tree):
    code, out, _ = cli(["good.py", "plain.py"], cwd=tree)
    assert (code, out) == (0, "All checks passed!\n")


def test_directories_recurse_and_default_to_the_current_one(cli, tree):
    code, out, _ = cli(["--format", "concise"], cwd=tree)
    assert code == 1 and "bad.py:8:9" in out and "good.py" not in out


def test_exit_zero(cli, tree):
    assert cli(["--exit-zero", "bad.py"], cwd=tree)[0] == 0


def test_full_format_shows_source_line_and_carets_without_colour_off_a_tty(cli, tree):
    code, out, _ = cli(["--output-format", "full", "bad.py"], cwd=tree)
    assert code == 1
    assert "8 |         y += 1\n  |         ^^^^^^ HY002" in out
    assert "= help: Rewrite as `y = y + ...`" in out
    assert "\x1b[" not in out


def test_colour_is_forced_by_force_color_and_disabled_by_no_color(cli, tree):
    _, out, _ = cli(["--output-format", "full", "bad.py"], cwd=tree, env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    assert "\x1b[" in out
    _, out, _ = cli(["--output-format", "full", "bad.py"], cwd=tree, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b[" not in out


def test_json_has_ruffs_fields_plus_severity(cli, tree):
    code, out, _ = cli(["--output-format", "json", "bad.py"], cwd=tree)
    assert code == 1
    data = json.loads(out)
    first = data[0]
    assert set(first) == {"cell", "code", "end_location", "filename", "fix", "location", "message",
                          "noqa_row", "severity", "url", "name"}
    assert first["filename"] == str(tree / "bad.py")
    assert (first["code"], first["location"], first["end_location"]) == (
        "HY002", {"row": 8, "column": 9}, {"row": 8, "column": 15})
    assert first["severity"] == "error"
    assert first["fix"]["applicability"] == "safe"
    assert first["fix"]["edits"][0]["content"].startswith("y = y + 1")
    assert json.loads(cli(["--format", "json", "good.py"], cwd=tree)[1]) == []


def test_sarif_2_1_0_for_code_scanning(cli, tree):
    code, out, _ = cli(["--output-format", "sarif", "bad.py"], cwd=tree)
    doc = json.loads(out)
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    run = doc["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert "HY002" in ids and "HY011" in ids
    result = run["results"][0]
    assert result["ruleId"] == "HY002" and result["level"] == "error"
    assert ids[result["ruleIndex"]] == "HY002"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "bad.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 8, "startColumn": 9, "endLine": 8, "endColumn": 15}


def test_github_annotations(cli, tree):
    _, out, _ = cli(["--output-format", "github", "bad.py"], cwd=tree)
    first = out.splitlines()[0]
    assert first.startswith("::error title=hybridize-check (HY002),file=bad.py,line=8,col=9,endLine=8,endColumn=15::")
    assert "bad.py:8:9: HY002 in-place" in first


def test_statistics_count_per_rule(cli, tree):
    code, out, _ = cli(["--statistics", "bad.py"], cwd=tree)
    assert code == 1
    assert out.splitlines()[:2] == ["1\tHY002\t[*] inplace-augmented-assignment",
                                    "1\tHY011\t[*] reshape-positional-dims"]


def test_output_file_is_written_whole(cli, tree):
    code, out, _ = cli(["--format", "json", "-o", "report.json", "bad.py"], cwd=tree)
    assert code == 1 and out == ""
    assert len(json.loads((tree / "report.json").read_text())) == 2
    assert [p.name for p in tree.iterdir() if p.name.startswith(".hybridize-check-")] == []


def test_output_file_in_a_missing_directory_is_a_usage_error(cli, tree):
    code, _, err = cli(["-o", "nowhere/report.txt", "bad.py"], cwd=tree)
    assert code == 2 and err.startswith("hybridize-check: error: cannot write nowhere/report.txt")


def test_unknown_format_is_a_usage_error(cli, tree):
    assert cli(["--output-format", "xml", "bad.py"], cwd=tree)[0] == 2


def test_select_and_ignore_flags(cli, tree):
    assert "HY011" not in cli(["--format", "concise", "--ignore", "HY011", "bad.py"], cwd=tree)[1]
    out = cli(["--format", "concise", "--select", "HY011", "bad.py"], cwd=tree)[1]
    assert "HY011" in out and "HY002" not in out
    code, _, err = cli(["--select", "HY999", "bad.py"], cwd=tree)
    assert code == 2 and "unknown rule code or prefix 'HY999'" in err


def test_explain_prints_the_rule(cli):
    code, out, _ = cli(["--explain", "HY004"])
    assert code == 0 and out.startswith("HY004 (tensor-condition):") and "F.where" in out


def test_real_console_scripts_agree(tree):
    for argv in (["hybridize-check"], ["hybridize", "check"]):
        import subprocess
        proc = subprocess.run([*argv, "--format", "concise", "bad.py"], cwd=tree, capture_output=True, text=True)
        assert proc.returncode == 1
        assert proc.stdout.splitlines()[-1] == "Found 2 errors (2 fixable)."


def test_parallel_results_are_deterministic(tree):
    for i in range(20):
        (tree / f"m{i:02d}.py").write_text(BAD if i % 2 else GOOD)
    serial = run_real(["--format", "concise", "-j", "1", "."], cwd=tree)
    parallel = run_real(["--format", "concise", "-j", "2", "."], cwd=tree)
    assert serial.returncode == parallel.returncode == 1
    assert serial.stdout == parallel.stdout
    assert serial.stdout.count("HY002") == 11


def test_an_internal_error_is_one_line_and_exit_2(cli, tree, monkeypatch):
    from hybridize.transpile.check import cli as check_cli

    def boom(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(check_cli, "check_paths", boom)
    code, out, err = cli(["bad.py"], cwd=tree)
    assert (code, out) == (2, "")
    assert err == "hybridize-check: error: internal error: RuntimeError: simulated bug\n"


def test_summary_counts_warnings_as_warnings(tmp_path):
    """HY008 is a warning: the summary says so, and warnings alone do not fail the run (exit 0)
    unless ``--exit-non-zero-on-warning`` asks them to."""
    src = tmp_path / "m.py"
    src.write_text("class N:\n    def hybrid_forward(self, F, x):\n        print(x)\n        y = x.asnumpy()\n"
                   "        return F.relu(x)\n")
    from click.testing import CliRunner

    from hybridize.transpile.check.cli import check
    res = CliRunner().invoke(check, [str(src), "--output-format", "concise", "--isolated"])
    assert res.exit_code == 1
    assert res.output.splitlines()[-1] == "Found 1 error and 1 warning (0 fixable)."
    src.write_text("class N:\n    def hybrid_forward(self, F, x):\n        print(x)\n        return F.relu(x)\n")
    res = CliRunner().invoke(check, [str(src), "--output-format", "concise", "--isolated"])
    assert res.exit_code == 0 and res.output.splitlines()[-1] == "Found 1 warning (0 fixable)."
    res = CliRunner().invoke(check, [str(src), "--output-format", "concise", "--isolated", "--exit-non-zero-on-warning"])
    assert res.exit_code == 1


def test_missing_path_is_never_all_checks_passed(tmp_path):
    from click.testing import CliRunner

    from hybridize.transpile.check.cli import check
    res = CliRunner().invoke(check, [str(tmp_path / "missing.py"), "--output-format", "concise"])
    assert res.exit_code == 2
    assert "All checks passed!" not in res.stdout
    assert res.stdout.strip() == "No findings in the files checked; 1 path could not be checked."
    assert res.stderr.strip().endswith("missing.py: no such file or directory")
