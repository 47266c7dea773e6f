"""``.gitignore`` semantics for directory walks (ruff's ``respect-gitignore``).

As ruff (and ripgrep) do, ignore files count only inside a git work tree (a ``.git`` above the
walked directory): ``.git/info/exclude`` and every ``.gitignore`` from the work tree's root down to
the directory being walked. Patterns follow gitignore(5): ``#`` comments, ``!`` negation (the last
matching pattern wins, deeper files after shallower ones), a trailing ``/`` for directories only,
a ``/`` elsewhere anchors the pattern to its file's directory, ``*``/``?``/``[...]`` do not cross
``/``, and ``**`` matches any number of directories. A directory that is ignored is not entered,
so nothing below it can be re-included (git behaves the same). The user's global excludes file
(``core.excludesFile``) is not read: it would make a check depend on the machine it runs on.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional


@dataclass(frozen=True)
class _Pattern:
    regex: "re.Pattern[str]"
    negated: bool
    dir_only: bool
    base: str  # the directory (absolute) the pattern is relative to


def _translate(glob: str) -> str:
    """A gitignore glob (without leading/trailing slash handling) as a regex over '/' paths."""
    out = []
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                at_start = i == 0 or glob[i - 1] == "/"
                after = glob[i + 2:i + 3]
                if at_start and after == "/":  # "**/": zero or more directories
                    out.append("(?:.*/)?")
                    i += 3
                    continue
                if at_start and after == "":   # trailing "/**": everything inside
                    out.append(".*")
                    i += 2
                    continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = glob.find("]", i + 2 if glob[i + 1:i + 2] in ("!", "]") else i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = glob[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif c == "\\" and i + 1 < len(glob):
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def parse(text: str, base: str) -> list[_Pattern]:
    """The patterns of one ignore file whose directory is ``base``."""
    patterns = []
    for raw in text.splitlines():
        line = raw.rstrip("\n\r")
        if not line or line.startswith("#"):
            continue
        # trailing spaces are ignored unless escaped
        while line.endswith(" ") and not line.endswith("\\ "):
            line = line[:-1]
        if not line:
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        regex = _translate(line)
        if not anchored:
            regex = "(?:.*/)?" + regex
        patterns.append(_Pattern(re.compile(regex + r"\Z"), negated, dir_only, base))
    return patterns


@lru_cache(maxsize=4096)
def _patterns_of(directory: str) -> tuple[_Pattern, ...]:
    path = os.path.join(directory, ".gitignore")
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return tuple(parse(handle.read(), directory))
    except OSError:
        return ()


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


@lru_cache(maxsize=256)
def _exclude_file(root: str) -> tuple[_Pattern, ...]:
    try:
        with open(os.path.join(root, ".git", "info", "exclude"), encoding="utf-8", errors="replace") as handle:
            return tuple(parse(handle.read(), root))
    except OSError:  # .git may be a file (worktrees, submodules): no exclude file of its own here
        return ()


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
    patterns = list(_exclude_file(root))
    for directory in reversed(chain):
        patterns.extend(_patterns_of(directory))
    verdict = False
    for pattern in patterns:
        if pattern.dir_only and not is_dir:
            continue
        rel = os.path.relpath(full, pattern.base).replace(os.sep, "/")
        if rel.startswith("../"):
            continue
        if pattern.regex.match(rel):
            verdict = not pattern.negated
    return verdict
