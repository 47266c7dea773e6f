"""Notebooks: code cells are checked as one module, reported as ``nb.ipynb:cell N:row:col``, fixed
in place with everything else in the notebook kept."""
from __future__ import annotations

import json

from transpile_helpers import cli  # noqa: F401  (fixture)

CELLS = [
    {"cell_type": "markdown", "metadata": {}, "source": ["# A model\n"]},
    {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
     "source": ["%matplotlib inline\n", "from mxnet import nd\n", "from mxnet.gluon import nn"]},
    {"cell_type": "code", "execution_count": 2, "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}],
     "source": ["class Net(nn.HybridBlock):\n", "    def hybrid_forward(self, F, x):\n", "        y = F.relu(x)\n",
                "        y += 1\n", "        return F.sigmoid(y)"]},
    {"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [], "source": ["%%time\n", "this is not python\n"]},
    {"cell_type": "code", "execution_count": 4, "metadata": {}, "outputs": [], "source": "!ls\nnet = Net()\nnet?\n"},
]


def _notebook(tmp_path, cells=CELLS, language="python"):
    doc = {"cells": cells, "metadata": {"kernelspec": {"language": language, "name": "k"}},
           "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


def test_findings_are_located_by_cell(cli, tmp_path):
    _notebook(tmp_path)
    code, out, _ = cli(["--isolated", "--output-format", "concise", "nb.ipynb"], cwd=tmp_path)
    assert code == 1
    line = out.splitlines()[0]
    assert line.startswith("nb.ipynb:cell 3:4:9: HY002 [*] in-place `+=` on tensor `y`")
    assert "on cell 3 line 3" in line  # where y came from, in the reader's coordinates too


def test_json_carries_the_cell(cli, tmp_path):
    _notebook(tmp_path)
    _, out, _ = cli(["--isolated", "--output-format", "json", "nb.ipynb"], cwd=tmp_path)
    [item] = json.loads(out)
    assert (item["cell"], item["location"], item["code"]) == (3, {"row": 4, "column": 9}, "HY002")


def test_fix_writes_back_into_the_cell_and_keeps_the_rest(cli, tmp_path):
    path = _notebook(tmp_path)
    before = json.loads(path.read_text())
    code, out, _ = cli(["--isolated", "--fix", "--output-format", "concise", "nb.ipynb"], cwd=tmp_path)
    assert code == 0, out
    after = json.loads(path.read_text())
    assert after["cells"][2]["source"][3] == "        y = y + 1\n"
    after["cells"][2]["source"][3] = "        y += 1\n"
    assert after == before  # magics, the %%time cell, outputs, metadata: untouched
    code, out, _ = cli(["--isolated", "--fix", "nb.ipynb"], cwd=tmp_path)
    assert code == 0  # idempotent


def test_a_directory_walk_includes_notebooks_and_other_languages_are_skipped(cli, tmp_path):
    _notebook(tmp_path, language="julia")
    code, out, _ = cli(["--isolated", "--output-format", "concise", "."], cwd=tmp_path)
    assert (code, out.strip()) == (0, "All checks passed!")
    _notebook(tmp_path)
    code, out, _ = cli(["--isolated", "--output-format", "concise", "."], cwd=tmp_path)
    assert code == 1 and out.startswith("nb.ipynb:cell 3:4:9: HY002")


def test_a_broken_notebook_is_hy000(cli, tmp_path):
    (tmp_path / "nb.ipynb").write_text('{"cells": [hybrid_forward')
    code, out, _ = cli(["--isolated", "--output-format", "concise", "nb.ipynb"], cwd=tmp_path)
    assert code == 1 and out.startswith("nb.ipynb:1:1: HY000 not a Jupyter notebook: invalid JSON")
