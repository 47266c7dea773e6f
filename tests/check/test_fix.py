"""``--fix`` and ``--diff``: safe rewrites through libcst, in place only with ``--fix``."""
from __future__ import annotations

from transpile_helpers import block

SOURCE = block("""
    y = F.relu(x)  # hidden
    y += F.sigmoid(x)  # add the gate
    z = y.reshape(0,
                  -1)  # flatten
    x += 1
    return z
""")

SAFELY_FIXED = (SOURCE.replace("y += F.sigmoid(x)", "y = y + F.sigmoid(x)")
                .replace("y.reshape(0,", "y.reshape((0,").replace("-1)  # flatten", "-1))  # flatten"))


def test_fix_rewrites_in_place_keeping_comments_and_reports_what_remains(cli, tmp_path):
    target = tmp_path / "model.py"
    target.write_text(SOURCE)
    code, out, _ = cli(["--fix", "--format", "concise", "model.py"], cwd=tmp_path)
    # only the two statements change; their comments and line breaks stay
    assert target.read_text() == SAFELY_FIXED
    assert "x += 1" in SAFELY_FIXED  # input still referenced by the caller: unsafe, not applied
    assert code == 1
    assert out.splitlines()[-2:] == ["Found 3 errors (2 fixed, 1 remaining).",
                                     "1 fix available with `--unsafe-fixes` (they may change imperative behaviour)."]
    assert "model.py:11:9: HY002" in out


def test_unsafe_fixes_apply_the_rest_and_fixing_is_idempotent(cli, tmp_path):
    target = tmp_path / "model.py"
    target.write_text(SOURCE)
    code, out, _ = cli(["--fix", "--unsafe-fixes", "model.py"], cwd=tmp_path)
    assert code == 0 and "x = x + 1" in target.read_text()
    before = target.read_text()
    code, out, _ = cli(["--fix", "--unsafe-fixes", "model.py"], cwd=tmp_path)
    assert (code, target.read_text()) == (0, before)
    assert out == "All checks passed!\n"


def test_diff_previews_without_writing(cli, tmp_path):
    target = tmp_path / "model.py"
    target.write_text(SOURCE)
    code, out, err = cli(["--diff", "model.py"], cwd=tmp_path)
    assert target.read_text() == SOURCE
    assert code == 1
    assert out.startswith("--- model.py\n+++ model.py\n")
    assert "\n-        y += F.sigmoid(x)  # add the gate\n" in out
    assert "\n+        y = y + F.sigmoid(x)  # add the gate\n" in out
    assert err == "Would fix 2 findings.\n"


def test_alias_makes_the_augmented_assignment_fix_unsafe():
    from transpile_helpers import findings
    source = block("""
        y = F.relu(x)
        keep = y
        y += 1
        return y + keep
    """)
    [finding] = findings(source)
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    assert "`keep` still refer(s) to it" in finding.fix.message


def test_without_fix_files_are_never_written(cli, tmp_path):
    target = tmp_path / "model.py"
    target.write_text(SOURCE)
    mtime = target.stat().st_mtime_ns
    cli(["model.py"], cwd=tmp_path)
    assert target.stat().st_mtime_ns == mtime and target.read_text() == SOURCE


def test_an_alias_never_read_again_does_not_make_the_fix_unsafe():
    from transpile_helpers import findings
    source = block("""
        y = F.relu(x)
        old = y
        y += 1
        return y
    """)
    [finding] = findings(source)
    assert finding.fix.applicability.value == "safe"


# The `if` is unsafe to convert while `h` is written in place; the safe fix of `h += 1` removes that
# write, after which the `if` conversion alone would be judged safe.
UNSAFE_AFTER_SAFE = block("""
    h = x * 2
    h += 1
    if x.sum() > 0:
        y = h * 2
    else:
        y = h * 3
    return y
""")


def test_a_fix_judged_unsafe_stays_unsafe_after_earlier_safe_fixes(cli, tmp_path):
    target = tmp_path / "model.py"
    target.write_text(UNSAFE_AFTER_SAFE)
    code, out, _ = cli(["--fix", "--format", "concise", "model.py"], cwd=tmp_path)
    fixed = target.read_text()
    assert "h = h + 1" in fixed and "if x.sum() > 0:" in fixed and "F.where" not in fixed
    assert out.splitlines()[-2:] == ["Found 2 errors (1 fixed, 1 remaining).",
                                     "1 fix available with `--unsafe-fixes` (they may change imperative behaviour)."]


def test_diff_shows_the_set_fix_applies_with_the_same_flags(cli, tmp_path):
    target = tmp_path / "model.py"
    target.write_text(UNSAFE_AFTER_SAFE)
    _, safe_diff, safe_err = cli(["--diff", "model.py"], cwd=tmp_path)
    _, unsafe_diff, unsafe_err = cli(["--diff", "--unsafe-fixes", "model.py"], cwd=tmp_path)
    assert (safe_err, unsafe_err) == ("Would fix 1 finding.\n", "Would fix 2 findings.\n")
    assert "F.where" not in safe_diff and "F.where" in unsafe_diff
    cli(["--fix", "model.py"], cwd=tmp_path)
    assert "F.where" not in target.read_text()


def test_summaries_spell_plurals():
    from hybridize.transpile.check.cli import _count
    assert [_count(1, "fix"), _count(2, "fix"), _count(2, "error"), _count(1, "warning")] == \
        ["1 fix", "2 fixes", "2 errors", "1 warning"]
