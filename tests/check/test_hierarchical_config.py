"""Each file is checked with the ``pyproject.toml`` nearest to it, as ruff does: settings are not
merged across files, patterns are relative to the directory of the file that holds them, a file
with no table above it uses the one found from the current directory, ``--config``/``--isolated``
give every file one configuration, and flags apply on top of whichever a file gets.
``--show-settings`` and ``--show-files`` say which configuration that is."""
from __future__ import annotations

import pytest

from transpile_helpers import block

BAD = block("""
    y = F.relu(x)
    y += 1
    print(y)
    return y[0]
""")   # HY002 (in-place), HY008 (print), HY010 (y[0])


def _table(directory, body: str) -> None:
    (directory / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.hybridize-check]\n" + body)


@pytest.fixture
def monorepo(tmp_path):
    """A root project and a sub-project with its own table; ``lib/`` has no table of its own."""
    for rel in ("app/model.py", "app/tests/test_model.py", "sub/model.py", "sub/tests/test_model.py", "lib/model.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(BAD)
    _table(tmp_path, 'ignore = ["HY008"]\n[tool.hybridize-check.per-file-ignores]\n"app/tests/*" = ["HY010"]\n')
    _table(tmp_path / "sub", 'select = ["HY010"]\n[tool.hybridize-check.per-file-ignores]\n"tests/*" = ["HY010"]\n')
    return tmp_path


def _by_file(out: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in out.splitlines():
        if ": HY" in line:
            found.setdefault(line.split(":")[0], []).append(line.split(" ")[1])
    return found


def test_each_file_uses_its_nearest_pyproject_with_patterns_relative_to_it(cli, monorepo):
    code, out, _ = cli(["--format", "concise", "."], cwd=monorepo)
    assert code == 1
    assert _by_file(out) == {
        "app/model.py": ["HY002", "HY010"],          # the root's table: HY008 ignored
        "app/tests/test_model.py": ["HY002"],        # ... and its per-file-ignores ("app/tests/*")
        "lib/model.py": ["HY002", "HY010"],          # no table in lib/: the root's
        "sub/model.py": ["HY010"],                   # sub/'s table alone (not merged with the root's)
    }                                                # sub/tests/*: "tests/*" relative to sub/


def test_the_same_file_checked_from_elsewhere_gets_the_same_settings(cli, monorepo):
    _, from_root, _ = cli(["--format", "concise", "sub/model.py"], cwd=monorepo)
    _, from_inside, _ = cli(["--format", "concise", "model.py"], cwd=monorepo / "sub")
    _, from_sibling, _ = cli(["--format", "concise", "../sub/model.py"], cwd=monorepo / "app")
    assert list(_by_file(from_root).values()) == list(_by_file(from_inside).values()) \
        == list(_by_file(from_sibling).values()) == [["HY010"]]


def test_excludes_of_a_subproject_apply_to_its_own_tree(cli, monorepo):
    _table(monorepo / "sub", 'extend-exclude = ["tests"]\n')
    code, out, _ = cli(["--show-files", "."], cwd=monorepo)
    assert code == 0
    listed = [line.split("\t")[0] for line in out.splitlines()]
    assert "sub/tests/test_model.py" not in listed and "app/tests/test_model.py" in listed


def test_flags_apply_on_top_of_each_files_configuration(cli, monorepo):
    _, out, _ = cli(["--format", "concise", "--extend-select", "HY008", "--ignore", "HY002", "."], cwd=monorepo)
    assert _by_file(out)["app/model.py"] == ["HY010"]              # the root's table ignores HY008
    assert _by_file(out)["sub/model.py"] == ["HY008", "HY010"]     # sub/'s selects HY010 alone


def test_config_and_isolated_give_every_file_one_configuration(cli, monorepo, tmp_path_factory):
    other = tmp_path_factory.mktemp("elsewhere") / "hybridize.toml"
    other.write_text('[tool.hybridize-check]\nselect = ["HY008"]\n')
    _, out, _ = cli(["--format", "concise", "--config", other, "app", "sub"], cwd=monorepo)
    assert set(map(tuple, _by_file(out).values())) == {("HY008",)}
    _, out, _ = cli(["--format", "concise", "--isolated", "sub/model.py"], cwd=monorepo)
    assert _by_file(out) == {"sub/model.py": ["HY002", "HY008", "HY010"]}


def test_show_files_lists_each_file_with_its_configuration(cli, monorepo):
    code, out, _ = cli(["--show-files", "."], cwd=monorepo)
    assert code == 0
    rows = dict(line.split("\t") for line in out.splitlines())
    root, sub = str(monorepo / "pyproject.toml"), str(monorepo / "sub" / "pyproject.toml")
    assert rows == {"app/model.py": root, "app/tests/test_model.py": root, "lib/model.py": root,
                    "sub/model.py": sub, "sub/tests/test_model.py": sub}


def test_show_files_says_defaults_when_no_table_is_found(cli, tmp_path):
    (tmp_path / "m.py").write_text(BAD)
    code, out, _ = cli(["--show-files", "m.py"], cwd=tmp_path)
    assert code == 0 and out == "m.py\t(defaults)\n"


def test_show_settings_resolves_the_first_file(cli, monorepo):
    code, out, _ = cli(["--show-settings", "sub/tests/test_model.py"], cwd=monorepo)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Resolved settings for: sub/tests/test_model.py"
    assert lines[1] == f"Settings path: {monorepo / 'sub' / 'pyproject.toml'}"
    assert f'root = "{monorepo / "sub"}"' in lines
    assert 'select = ["HY010"]' in lines
    assert 'per-file-ignores = {"tests/*" = ["HY010"]}' in lines
    assert "rules for this file = []" in lines      # HY010, the only one selected, is ignored here


def test_show_settings_with_flags_and_a_missing_path(cli, monorepo):
    code, out, _ = cli(["--show-settings", "--extend-select", "HY008", "app/model.py"], cwd=monorepo)
    assert code == 0 and 'extend-select = ["HY008"]' in out.splitlines()
    code, _, err = cli(["--show-files", "nowhere"], cwd=monorepo)
    assert code == 2 and "nowhere: no such file or directory" in err
