"""Import mapping: mxnet -> hybridize.runtime, relative imports resolved by walking __init__.py files."""
from __future__ import annotations

from pathlib import Path

import pytest

from support import CORPUS, require_shared

from hybridize.transpile.imports import (Tree, map_module, module_name_of, package_of, plan_from_import,
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
