"""Import mapping: mxnet -> hybridize.runtime, relative imports resolved by walking __init__.py files."""
from __future__ import annotations

from pathlib import Path

import pytest

from support import CORPUS, require_shared

from hybridize.transpile.emit.imports import (Tree, map_module, module_name_of, package_of, plan_from_import,
                                         plan_import, resolve_relative)

VISION = CORPUS / "mxnet" / "gluon" / "model_zoo" / "vision"


def test_map_module():
    assert map_module("mxnet") == "hybridize.runtime"
    assert map_module("mxnet.gluon.nn") == "hybridize.runtime.gluon.nn"
    assert map_module("mxnetx") is None
    assert map_module("numpy") is None


def test_resolve_relative():
    assert resolve_relative("a.b.c", 1, "d") == "a.b.c.d"
    assert resolve_relative("a.b.c", 3, "block") == "a.block"
    assert resolve_relative("a.b.c", 3, None) == "a"
    assert resolve_relative("a.b.c", 4, "x") is None
    assert resolve_relative(None, 1, "x") is None


def test_corpus_packages_found_by_walking_init_files():
    require_shared()
    resnet = VISION / "resnet.py"
    assert package_of(str(resnet)) == "mxnet.gluon.model_zoo.vision"
    assert module_name_of(str(resnet)) == "mxnet.gluon.model_zoo.vision.resnet"
    assert module_name_of(str(VISION / "__init__.py")) == "mxnet.gluon.model_zoo.vision"


def test_resnet_imports_from_the_brief():
    require_shared()
    tree = Tree.for_path(str(VISION))
    pkg = "mxnet.gluon.model_zoo.vision"
    plan = plan_from_import(3, "block", pkg, tree, ("HybridBlock",))
    assert (plan.keep, plan.module) == (False, "hybridize.runtime.gluon.block")
    assert plan_from_import(4, "context", pkg, tree).module == "hybridize.runtime.context"
    assert plan_from_import(3, None, pkg, tree, ("nn",)).module == "hybridize.runtime.gluon"
    assert plan_from_import(2, "model_store", pkg, tree).module == "hybridize.runtime.gluon.model_zoo.model_store"
    assert plan_from_import(1, "resnet", pkg, tree).keep  # inside the transpiled tree


def test_relative_imports_inside_a_bigger_tree_stay_relative():
    require_shared()
    tree = Tree.for_path(str(CORPUS / "mxnet"))
    pkg = "mxnet.gluon.model_zoo.vision"
    assert plan_from_import(3, "block", pkg, tree).keep          # mxnet/gluon/block.py is in the tree
    assert plan_from_import(4, "context", pkg, tree).module == "hybridize.runtime.context"  # not in the corpus


def test_outside_non_mxnet_targets_become_absolute(tmp_path: Path):
    pkg = tmp_path / "mypkg"
    (pkg / "sub").mkdir(parents=True)
    for f in ("__init__.py", "utils.py", "sub/__init__.py", "sub/layers.py", "sub/more.py"):
        (pkg / f).write_text("")
    tree = Tree.for_path(str(pkg / "sub"))
    assert plan_from_import(2, "utils", "mypkg.sub", tree).module == "mypkg.utils"
    assert plan_from_import(1, "more", "mypkg.sub", tree).keep
    assert plan_from_import(1, None, "mypkg.sub", tree, ("layers",)).keep
    assert plan_from_import(0, "mypkg.utils", "mypkg.sub", tree).keep
    assert plan_from_import(0, "mxnet.gluon", "mypkg.sub", tree).module == "hybridize.runtime.gluon"


@pytest.mark.parametrize("dotted,asname,expected", [
    ("mxnet", "mx", ("hybridize.runtime", "mx", None)),
    ("mxnet", None, ("hybridize.runtime", "mxnet", None)),
    ("mxnet.ndarray", "nd", ("hybridize.runtime.ndarray", "nd", None)),
    ("mxnet.gluon", None, ("hybridize.runtime", "mxnet", "hybridize.runtime.gluon")),
    ("numpy", "np", None),
])
def test_plain_imports(dotted, asname, expected):
    assert plan_import(dotted, asname) == expected


def _partial_mxnet(root: Path) -> Path:
    """A partial copy of mxnet: the top-level __init__ imports submodules that are not in the copy."""
    mx = root / "mxnet"
    (mx / "gluon").mkdir(parents=True)
    (mx / "__init__.py").write_text("from . import rtc, gluon\nfrom .base import MXNetError\n"
                                    "from . import ndarray as nd\nVALUE = 1\n")
    (mx / "gluon" / "__init__.py").write_text("from .block import *\n")
    (mx / "gluon" / "block.py").write_text("")
    return mx


def test_tree_binds_reads_the_package_init(tmp_path: Path):
    mx = _partial_mxnet(tmp_path)
    tree = Tree.for_path(str(mx))
    assert tree.binds("mxnet", "VALUE") is True
    assert tree.binds("mxnet", "nd") is True            # `from . import ndarray as nd` binds an attribute
    assert tree.binds("mxnet", "rtc") is False       # `from . import rtc`: the submodule itself
    assert tree.binds("mxnet", "ndarray") is False
    assert tree.binds("mxnet.gluon", "HybridBlock") is None   # star import: cannot tell
    assert tree.binds("mxnet.gluon.block", "x") is None      # a module, not a package
    assert tree.binds("other", "x") is None


def test_submodules_outside_a_partial_mxnet_copy_map_to_the_runtime(tmp_path: Path):
    """``from . import rtc`` in a partial mxnet/__init__.py leaves the tree (there is no rtc.py):
    it used to stay relative, importing a module the output does not have."""
    mx = _partial_mxnet(tmp_path)
    tree = Tree.for_path(str(mx))
    plan = plan_from_import(1, None, "mxnet", tree, ("rtc", "gluon"))
    assert (plan.keep, plan.module, plan.moved) == (False, "hybridize.runtime", ("rtc",))
    plan = plan_from_import(1, None, "mxnet", tree, ("rtc",))
    assert (plan.keep, plan.module, plan.moved) == (False, "hybridize.runtime", ())
    assert plan_from_import(1, None, "mxnet", tree, ("gluon",)).keep               # in the tree
    assert plan_from_import(2, None, "mxnet.gluon", tree, ("VALUE", "nd")).keep    # attributes of mxnet
    plan = plan_from_import(2, None, "mxnet.gluon", tree, ("VALUE", "ndarray", "symbol"))
    assert (plan.module, plan.moved) == ("hybridize.runtime", ("ndarray", "symbol"))
    assert plan_from_import(1, None, "mxnet.gluon", tree, ("HybridBlock",)).keep   # star import: kept
    assert plan_from_import(1, "block", "mxnet.gluon", tree, ("HybridBlock",)).keep


def test_partial_copy_of_another_package_is_left_as_written(tmp_path: Path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import _ext\n")  # e.g. a compiled extension next to it
    tree = Tree.for_path(str(pkg))
    assert plan_from_import(1, None, "mypkg", tree, ("_ext",)).keep


def test_rewrite_splits_a_from_import(tmp_path: Path, transpile_cmd):
    mx = _partial_mxnet(tmp_path / "src")
    (mx / "gluon" / "utils.py").write_text(
        "from .. import VALUE, ndarray, nd as _nd  # comment\n"
        "from .. import (\n    symbol,\n    VALUE as V,\n)\n"
        "from .. import rtc; from . import block\n")
    out = tmp_path / "out"
    result = transpile_cmd(str(mx), "-o", str(out), "--keep-going")
    # the runtime has no ``rtc`` (CUDA kernels compiled at run time): reported (HY012), and the modules are written all the same
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "HY012 `mxnet.rtc` (`from .. import rtc`)" in result.stdout
    assert "unsupported APIs (HY012): mxnet.rtc." in result.stderr
    init = (out / "mxnet" / "__init__.py").read_text()
    # ... and the name the runtime lacks is a placeholder that raises when used, so the module imports
    assert "\nfrom . import gluon\n" \
           "from hybridize.runtime.gluon.static_graph import unsupported_api as _hybridize_unsupported\n" \
           "rtc = _hybridize_unsupported('mxnet.rtc')\n" \
           "from hybridize.runtime.base import MXNetError\nfrom hybridize.runtime import ndarray as nd\n" in init
    utils = (out / "mxnet" / "gluon" / "utils.py").read_text()
    assert "\nfrom .. import VALUE, nd as _nd  # comment\nfrom hybridize.runtime import ndarray\n" in utils
    assert "\nfrom .. import (\n    VALUE as V,\n)\nfrom hybridize.runtime import (\n    symbol,\n)\n" in utils
    assert "\nfrom hybridize.runtime.gluon.static_graph import unsupported_api as _hybridize_unsupported; " \
           "rtc = _hybridize_unsupported('mxnet.rtc'); from . import block\n" in utils


def test_a_transpiled_module_never_repeats_an_import_line(tmp_path: Path, transpile_cmd):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "m.py").write_text(
        "import mxnet\nimport mxnet.ndarray\nimport mxnet.gluon\nfrom mxnet.gluon import nn\n"
        "from hybridize.runtime.gluon.static_graph import static_graph\n\n\n"
        "class Net(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.relu(x)\n\n\n"
        "def later():\n    import mxnet.symbol\n    return mxnet.symbol\n")
    assert transpile_cmd(str(pkg), "-o", str(tmp_path / "once")).exit_code == 0
    once = (tmp_path / "once" / "pkg" / "m.py").read_text()
    lines = [line for line in once.splitlines() if line.startswith(("import ", "from "))]
    assert len(lines) == len(set(lines)), once
    # ``import mxnet.gluon`` after ``import mxnet`` needs no second ``... as mxnet`` at the top level
    assert "import hybridize.runtime.ndarray\nimport hybridize.runtime.gluon\n" in once
    # inside a function the import still binds its own ``mxnet``
    assert "    import hybridize.runtime.symbol, hybridize.runtime as mxnet\n" in once
    # transpiling the result again changes nothing but the header's source path
    assert transpile_cmd(str(tmp_path / "once" / "pkg"), "-o", str(tmp_path / "twice")).exit_code == 0
    twice = (tmp_path / "twice" / "pkg" / "m.py").read_text()
    assert once.splitlines()[1:] == twice.splitlines()[1:]
