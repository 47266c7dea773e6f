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
