"""``.gitignore`` semantics for directory walks (ruff's ``respect-gitignore``).

As ruff (and ripgrep) do, ignore files count only inside a git work tree (a ``.git`` above the
walked directory): ``.git/info/exclude`` and every ``.gitignore`` from the work tree's root down to
the directory being walked. Each file's patterns are gitignore(5)'s, matched by pathspec's
``GitIgnoreSpec`` (the last matching pattern of a file wins, ``!`` re-includes, a trailing ``/``
matches directories only); across files a deeper file's verdict overrides a shallower one's, as git
does. A directory that is ignored is not entered, so nothing below it can be re-included (git
behaves the same). The user's global excludes file (``core.excludesFile``) is not read: it would
make a check depend on the machine it runs on.
"""
from __future__ import annotations

import os
from functools import lru_cache
from typing import Optional

from pathspec import GitIgnoreSpec

_Rules = tuple[str, GitIgnoreSpec]  # (the directory patterns are relative to, its patterns)


def _read(path: str, base: str) -> Optional[_Rules]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            spec = GitIgnoreSpec.from_lines(handle.read().splitlines())
    except OSError:  # absent; or .git is a file (worktrees, submodules) with no exclude file here
        return None
    return (base, spec) if len(spec) else None


@lru_cache(maxsize=4096)
def _rules_of(directory: str) -> Optional[_Rules]:
    return _read(os.path.join(directory, ".gitignore"), directory)


@lru_cache(maxsize=256)
def _exclude_file(root: str) -> Optional[_Rules]:
    return _read(os.path.join(root, ".git", "info", "exclude"), root)


@lru_cache(maxsize=1024)
def work_tree_of(directory: str) -> Optional[str]:
    """The git work tree containing ``directory`` (absolute), or ``None``."""
    current = directory
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def is_ignored(path: str, is_dir: bool) -> bool:
    """Whether git would ignore ``path`` (its parent directories are assumed not ignored: walks
    prune ignored directories before entering them)."""
    full = os.path.abspath(path)
    parent = os.path.dirname(full)
    root = work_tree_of(parent)
    if root is None:
        return False
    if os.path.basename(full) == ".git":
        return True
    chain = []
    current = parent
    while True:
        chain.append(current)
        if current == root:
            break
        up = os.path.dirname(current)
        if up == current:
            break
        current = up
    rules = [_exclude_file(root)] + [_rules_of(d) for d in reversed(chain)]
    verdict = False
    for found in rules:
        if found is None:
            continue
        base, spec = found
        rel = os.path.relpath(full, base).replace(os.sep, "/")
        if rel.startswith("../"):
            continue
        include = spec.check_file(rel + "/" if is_dir else rel).include
        if include is not None:
            verdict = include
    return verdict
