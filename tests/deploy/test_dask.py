"""README's Dask example, run as written: a hybridized ``SymbolBlock`` shipped (pickled) to the
two worker processes of a ``distributed.LocalCluster`` on the loopback interface and mapped over
the partitions of a batch; the script itself checks the result against one process."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from support import FIXTURES, REPO, package_search_path, require_shared


def test_readme_dask_example_runs_on_a_local_cluster(tmp_path) -> None:
    pytest.importorskip("distributed")
    require_shared()
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- dask-example -->\s*```python\n(.*?)```", text, re.S)
    assert block, "README.md shows the Dask example after <!-- dask-example -->"
    (tmp_path / "example.py").write_text(block.group(1))
    for name in ("model-symbol.json", "model-0000.params"):
        shutil.copy(FIXTURES / "models" / "seed_mlp" / name, tmp_path / name)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*package_search_path(), os.environ.get("PYTHONPATH", "")]),
               HYBRIDIZE_THREADS="1")
    p = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip().splitlines()[-1] == "y: (1000, 2) float32"
