"""Configuration (``[tool.hybridize-check]``, flags override) and ``# noqa`` suppressions."""
from __future__ import annotations

import pytest

from transpile_helpers import block, findings

BAD = block("""
    y = F.relu(x)
    y += 1
    print(y)
    return y[0]
""")


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text(BAD)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_model.py").write_text(BAD)
    return tmp_path


def _write_config(root, body: str) -> None:
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.hybridize-check]\n" + body)


def _codes(out: str) -> list[str]:
    return [line.split(" ")[1] for line in out.splitlines() if ": HY" in line]


def test_defaults_select_every_rule(cli, project):
    code, out, _ = cli(["--format", "concise", "pkg"], cwd=project)
    assert code == 1 and _codes(out) == ["HY002", "HY008", "HY010"]


def test_select_ignore_and_per_file_ignores_from_pyproject(cli, project):
    _write_config(project, 'select = ["HY0"]\nignore = ["HY008"]\n'
                           '[tool.hybridize-check.per-file-ignores]\n"tests/*" = ["HY010"]\n')
    _, out, _ = cli(["--format", "concise", "."], cwd=project)
    assert [line.split(":")[0] for line in out.splitlines() if ": HY" in line] == [
        "pkg/model.py", "pkg/model.py", "tests/test_model.py"]
    assert _codes(out) == ["HY002", "HY010", "HY002"]


def test_config_is_found_from_a_subdirectory(cli, project):
    _write_config(project, 'ignore = ["HY002", "HY010"]\n')
    code, out, _ = cli(["--format", "concise", "model.py"], cwd=project / "pkg")
    assert _codes(out) == ["HY008"]


def test_flags_override_the_file(cli, project):
    _write_config(project, 'select = ["HY002"]\n')
    _, out, _ = cli(["--format", "concise", "--select", "HY010", "pkg"], cwd=project)
    assert _codes(out) == ["HY010"]
    _, out, _ = cli(["--format", "concise", "--isolated", "pkg"], cwd=project)
    assert _codes(out) == ["HY002", "HY008", "HY010"]


def test_exclude_and_extend_exclude(cli, project):
    _write_config(project, 'extend-exclude = ["tests"]\n')
    _, out, _ = cli(["--format", "concise", "."], cwd=project)
    assert "tests/" not in out and "pkg/model.py" in out
    _, out, _ = cli(["--format", "concise", "--force-exclude", "tests/test_model.py"], cwd=project)
    assert out == "All checks passed!\n"


@pytest.mark.parametrize("body,message", [
    ('selct = ["HY002"]\n', "unknown key 'selct'"),
    ('select = ["HY2"]\n', "unknown rule code or prefix 'HY2'"),
    ('ignore = "HY002"\n', "expected a list of strings"),
    ('select = [\n', "invalid TOML"),
])
def test_config_errors_are_exit_2_one_line(cli, project, body, message):
    _write_config(project, body)
    code, out, err = cli(["pkg"], cwd=project)
    assert code == 2 and out == ""
    assert err.startswith("hybridize-check: error: ") and message in err and err.count("\n") == 1


# -- suppressions ------------------------------------------------------------------------------
def test_noqa_with_and_without_codes():
    source = block("""
        y = F.relu(x)
        y += 1  # noqa: HY002
        print(y)  # noqa
        return y[0]  # noqa: HY002, HY010
    """)
    assert [(f.start.row, f.code) for f in findings(source)] == [(10, "HY100")]
    assert "HY002 reported nothing" in findings(source)[0].message


def test_unused_noqa_is_reported_but_bare_noqa_is_left_to_other_tools():
    source = block("""
        y = F.relu(x)  # noqa: HY001
        z = y * 2  # noqa
        return z  # noqa: E501
    """)
    assert [(f.start.row, f.code) for f in findings(source)] == [(7, "HY100")]


def test_file_level_noqa():
    assert findings("# hybridize-check: noqa\n" + BAD) == []
    only = findings("# hybridize-check: noqa: HY008\n" + BAD)
    assert [f.code for f in only] == ["HY002", "HY010"]
    unused = findings("# hybridize-check: noqa\n" + block("return x"))
    assert [f.code for f in unused] == ["HY100"]
