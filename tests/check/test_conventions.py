"""Where ruff users have habits, hybridize-check follows them (see docs/checker.md's flag table)."""
from __future__ import annotations

import json
import subprocess
import sys

from transpile_helpers import block, cli  # noqa: F401  (cli is a fixture)

AUG = block("y = F.relu(x)\ny += 1\nreturn y")                # HY002, safe fix
UNSAFE = block("x += 1\nreturn x")                             # HY002, unsafe fix (caller holds x)
INDEX = block("h = F.relu(x)\nreturn h[0]")                   # HY010


def _stdin(args, text, cwd):
    return subprocess.run([sys.executable, "-m", "hybridize.cli", "check", *args], input=text, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_noqa_is_case_insensitive(cli, tmp_path):
    for directive in ("# NOQA: HY010", "# NoQA: HY010", "# NOQA", "# noqa:HY010"):
        (tmp_path / "m.py").write_text(INDEX.replace("return h[0]", f"return h[0]  {directive}"))
        code, out, _ = cli(["--isolated", "--output-format", "concise", "m.py"], cwd=tmp_path)
        assert (code, out.strip()) == (0, "All checks passed!"), directive


def test_a_file_level_noqa_does_not_make_line_directives_unused(cli, tmp_path):
    text = "# hybridize-check: noqa: HY010\n" + INDEX.replace("return h[0]", "return h[0]  # noqa: HY010")
    (tmp_path / "m.py").write_text(text)
    code, out, _ = cli(["--isolated", "--output-format", "concise", "m.py"], cwd=tmp_path)
    assert (code, out.strip()) == (0, "All checks passed!")


def test_version(cli):
    from hybridize import __version__
    code, out, _ = cli(["--version"])
    assert code == 0 and out.strip() == f"hybridize-check {__version__}"


def test_stdin_with_stdin_filename(tmp_path):
    proc = _stdin(["--isolated", "--output-format", "concise", "--stdin-filename", "pkg/model.py", "-"], INDEX, tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith("pkg/model.py:8:16: HY010 ")


def test_stdin_fix_prints_the_fixed_source_and_reports_on_stderr(tmp_path):
    proc = _stdin(["--isolated", "--fix", "--stdin-filename", "m.py", "-"], AUG, tmp_path)
    assert proc.returncode == 0
    assert proc.stdout == AUG.replace("y += 1", "y = y + 1")
    assert "Found 1 error (1 fixed, 0 remaining)." in proc.stderr


def test_stdin_per_file_ignores_follow_the_stdin_filename(tmp_path):
    proc = _stdin(["--isolated", "--per-file-ignores", "tests/*:HY010", "--stdin-filename", "tests/m.py",
                   "--output-format", "concise", "-"], INDEX, tmp_path)
    assert proc.returncode == 0, proc.stdout


def test_hint_names_the_fixes_only_unsafe_fixes_apply(cli, tmp_path):
    (tmp_path / "m.py").write_text(UNSAFE)
    code, out, _ = cli(["--isolated", "--output-format", "concise", "m.py"], cwd=tmp_path)
    assert code == 1
    assert out.splitlines()[-2:] == ["Found 1 error (0 fixable).",
                                     "1 fix available with `--unsafe-fixes` (they may change imperative behaviour)."]


def test_show_fixes_lists_what_fix_changed(cli, tmp_path):
    (tmp_path / "m.py").write_text(AUG)
    code, out, _ = cli(["--isolated", "--fix", "--show-fixes", "--output-format", "concise", "m.py"], cwd=tmp_path)
    assert code == 0
    assert out.splitlines()[:3] == ["Fixed 1 error:", "- m.py:", "    1 \u00d7 HY002 (inplace-augmented-assignment)"]


def test_statistics_honour_json(cli, tmp_path):
    (tmp_path / "m.py").write_text(AUG + INDEX.replace("class Net", "class Other"))
    code, out, _ = cli(["--isolated", "--statistics", "--output-format", "json", "m.py"], cwd=tmp_path)
    assert code == 1
    stats = json.loads(out)
    assert [(s["code"], s["name"], s["count"]) for s in stats] == [
        ("HY002", "inplace-augmented-assignment", 1), ("HY010", "tensor-indexing", 1)]
    assert stats[0]["fixable"] is True and isinstance(stats[1]["fixable"], bool)


def test_json_url_is_absolute_and_names_the_rule(cli, tmp_path):
    (tmp_path / "m.py").write_text(INDEX)
    _, out, _ = cli(["--isolated", "--output-format", "json", "m.py"], cwd=tmp_path)
    [item] = json.loads(out)
    assert item["name"] == "tensor-indexing"
    assert item["url"].startswith("https://") and item["url"].endswith("#hy010")


def test_sarif_has_help_uri_and_fixes(cli, tmp_path):
    (tmp_path / "m.py").write_text(AUG)
    _, out, _ = cli(["--isolated", "--output-format", "sarif", "m.py"], cwd=tmp_path)
    run = json.loads(out)["runs"][0]
    assert all(rule["helpUri"].startswith("https://") for rule in run["tool"]["driver"]["rules"])
    [result] = run["results"]
    [change] = result["fixes"][0]["artifactChanges"]
    [replacement] = change["replacements"]
    assert change["artifactLocation"]["uri"] == "m.py"
    assert replacement["insertedContent"]["text"] == "y = y + 1"
    assert replacement["deletedRegion"] == {"startLine": 8, "startColumn": 9, "endLine": 8, "endColumn": 15}


def test_warnings_alone_do_not_fail_unless_asked(cli, tmp_path):
    (tmp_path / "m.py").write_text(block("print(x)\nreturn F.relu(x)"))
    code, out, _ = cli(["--isolated", "--output-format", "concise", "m.py"], cwd=tmp_path)
    assert code == 0 and out.splitlines()[-1] == "Found 1 warning (0 fixable)."
    code, _, _ = cli(["--isolated", "--exit-non-zero-on-warning", "m.py"], cwd=tmp_path)
    assert code == 1


def test_summary_after_fix_counts_errors_and_warnings_apart(cli, tmp_path):
    (tmp_path / "m.py").write_text(block("print(x)\ny = F.relu(x)\ny += 1\nreturn y"))
    code, out, _ = cli(["--isolated", "--fix", "--output-format", "concise", "m.py"], cwd=tmp_path)
    assert code == 0
    assert out.splitlines()[-1] == "Found 1 error and 1 warning (1 fixed, 1 remaining)."


def test_add_noqa_silences_every_finding_and_then_nothing_is_reported(cli, tmp_path):
    text = INDEX.replace("return h[0]", "y = h[1]  # noqa: E501  # merged\n        return h[0] + y  # keep")
    (tmp_path / "m.py").write_text(text)
    code, _, err = cli(["--isolated", "--add-noqa", "m.py"], cwd=tmp_path)
    assert code == 0 and "Added 2 noqa directives." in err
    new = (tmp_path / "m.py").read_text()
    assert "y = h[1]  # noqa: E501, HY010  # merged\n" in new
    assert "return h[0] + y  # keep  # noqa: HY010\n" in new
    code, out, _ = cli(["--isolated", "--output-format", "concise", "m.py"], cwd=tmp_path)
    assert (code, out.strip()) == (0, "All checks passed!")
    code, _, err = cli(["--isolated", "--add-noqa", "m.py"], cwd=tmp_path)
    assert "Added 0 noqa directives." in err and (tmp_path / "m.py").read_text() == new


def test_unused_noqa_is_fixable(cli, tmp_path):
    (tmp_path / "m.py").write_text(block("y = F.relu(x)  # noqa: HY010\nreturn y"))
    code, out, _ = cli(["--isolated", "--fix", "--output-format", "concise", "m.py"], cwd=tmp_path)
    assert code == 0 and out.splitlines()[-1] == "Found 1 warning (1 fixed, 0 remaining)."
    assert (tmp_path / "m.py").read_text() == block("y = F.relu(x)\nreturn y")


def test_gitignored_files_are_skipped_in_walks_unless_told(cli, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n*_gen.py\n!keep_gen.py\n")
    for rel in ("generated/m.py", "pkg/a_gen.py", "pkg/keep_gen.py", "pkg/m.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(INDEX)
    (tmp_path / "pkg" / ".gitignore").write_text("m.py\n")
    code, out, _ = cli(["--isolated", "--output-format", "concise", "."], cwd=tmp_path)
    assert sorted({line.split(":")[0] for line in out.splitlines()[:-1]}) == ["pkg/keep_gen.py"]
    code, out, _ = cli(["--isolated", "--output-format", "concise", "--no-respect-gitignore", "."], cwd=tmp_path)
    assert len({line.split(":")[0] for line in out.splitlines()[:-1]}) == 4
    # a file named explicitly is checked (ruff), unless --force-exclude
    code, out, _ = cli(["--isolated", "--output-format", "concise", "pkg/m.py"], cwd=tmp_path)
    assert code == 1
    code, out, _ = cli(["--isolated", "--output-format", "concise", "--force-exclude", "pkg/m.py"], cwd=tmp_path)
    assert code == 0


def test_gitignore_outside_a_git_work_tree_is_not_read(cli, tmp_path):
    (tmp_path / ".gitignore").write_text("*.py\n")
    (tmp_path / "m.py").write_text(INDEX)
    code, _, _ = cli(["--isolated", "."], cwd=tmp_path)
    assert code == 1


def test_gitignore_verdicts_agree_with_git_check_ignore(tmp_path):
    import shutil
    import pytest
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    from hybridize.transpile.check.gitignore import is_ignored
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n*.log\n!keep.log\n/top.py\na/**/deep.py\n[abc]x.py\n\\#hash.py\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("!*.log\nlocal.py\n")
    files = ["x.log", "keep.log", "top.py", "sub/top.py", "a/b/c/deep.py", "a/deep.py", "bx.py", "dx.py",
             "#hash.py", "sub/x.log", "sub/local.py", "local.py", "ok.py"]
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / "build").mkdir()
    git = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], input="\n".join(files + ["build"]),
                         cwd=tmp_path, capture_output=True, text=True)
    ignored_by_git = set(git.stdout.split())
    ours = {rel for rel in files if is_ignored(str(tmp_path / rel), False)}
    ours |= {"build"} if is_ignored(str(tmp_path / "build"), True) else set()
    assert ours == ignored_by_git
