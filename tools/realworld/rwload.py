"""Harness helpers: alias mxnet -> hybridize.runtime; load package modules without running heavy __init__s."""
import importlib
import importlib.abc
import importlib.util
import sys
import types
import os

class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name == "mxnet" or name.startswith("mxnet."):
            return importlib.util.spec_from_loader(name, self)
        return None
    def create_module(self, spec):
        real = "hybridize.runtime" + spec.name[len("mxnet"):]
        mod = importlib.import_module(real)
        for k, v in list(sys.modules.items()):  # submodules registered by the real package
            if k.startswith("hybridize.runtime."):
                sys.modules.setdefault("mxnet" + k[len("hybridize.runtime"):], v)
        return mod
    def exec_module(self, module):
        pass

def alias_mxnet():
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.insert(0, _Alias())

def stub_packages(root, names):
    """Make each dotted package name an empty package (its __init__ is not run)."""
    for name in names:
        if name in sys.modules:
            continue
        m = types.ModuleType(name)
        m.__path__ = [os.path.join(root, *name.split("."))]
        m.__package__ = name
        sys.modules[name] = m
        if "." in name and name.rpartition(".")[0] in sys.modules:
            parent, _, child = name.rpartition(".")
            setattr(sys.modules[parent], child, m)

def setup(root, stubs, mxnet_alias=True):
    if mxnet_alias:
        alias_mxnet()
    if root not in sys.path:
        sys.path.insert(0, root)
    stub_packages(root, stubs)


class _Fallback(importlib.abc.MetaPathFinder):
    """Modules the transpiler refused: load the original source (after the transpiled tree)."""
    def __init__(self, troot, root, prefixes):
        self.troot, self.root, self.prefixes = troot, root, prefixes
    def find_spec(self, name, path=None, target=None):
        if not any(name == p or name.startswith(p + ".") for p in self.prefixes):
            return None
        rel = name.split(".")
        for cand in (os.path.join(self.root, *rel) + ".py", os.path.join(self.root, *rel, "__init__.py")):
            tcand = cand.replace(self.root, self.troot, 1)
            if os.path.exists(cand) and not os.path.exists(tcand):
                if cand.endswith("__init__.py"):
                    return importlib.util.spec_from_file_location(name, cand, submodule_search_locations=[os.path.dirname(cand)])
                return importlib.util.spec_from_file_location(name, cand)
        return None

def fallback(troot, root, prefixes):
    sys.meta_path.append(_Fallback(troot, root, prefixes))
