"""``[tool.hybridize-check]`` in the ``pyproject.toml`` nearest each checked file, merged with
command-line flags.

Keys follow ruff: ``select``, ``extend-select``, ``ignore``, ``per-file-ignores`` (glob -> codes),
``exclude`` (replaces the default excludes), ``extend-exclude``, ``respect-gitignore`` (default true). Selectors are rule codes or
prefixes of them (``"HY"``, ``"HY00"``, ``"HY002"``) or ``"ALL"``. Unknown keys, unknown codes and
wrong types raise :class:`ConfigError` (the CLI prints one line and exits 2): a typo in a config
must not silently disable a check.

Configuration is hierarchical, as ruff's: each file is checked with the settings of the first
``pyproject.toml`` with a ``[tool.hybridize-check]`` table found walking up from the file's own
directory (:class:`Resolver`); patterns in it (excludes, per-file-ignores) are relative to that
file's directory. Settings are never merged across files; a file with no such table above it
uses the one found from the current directory (or the defaults). ``--config FILE`` and
``--isolated`` give every file one configuration; command-line flags apply on top of whichever
configuration a file gets.
"""
from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Union

from ..rules import rule_codes

SECTION = "hybridize-check"
KNOWN_KEYS = ("select", "extend-select", "ignore", "per-file-ignores", "exclude", "extend-exclude",
              "respect-gitignore")
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".ruff_cache",
    ".pytest_cache", "__pycache__", "__pypackages__", "build", "dist", "node_modules",
    "site-packages", ".eggs", "*.egg-info",
)


class ConfigError(Exception):
    """An invalid configuration or flag value; one line, exit code 2."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("ALL",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    root: str = field(default_factory=os.getcwd)
    source: Optional[str] = None

    def for_path(self, path: str) -> "Config":
        """The configuration of ``path``: this one (a :class:`Resolver` answers per file)."""
        return self

    # -- rule selection ---------------------------------------------------------------------
    def enabled_codes(self) -> frozenset[str]:
        chosen = {c for c in rule_codes() if _matches_any(c, self.select + self.extend_select)}
        return frozenset(c for c in chosen if not _matches_any(c, self.ignore))

    def codes_for(self, path: str) -> frozenset[str]:
        """Rules that apply to ``path`` once ``per-file-ignores`` are taken into account."""
        codes = self.enabled_codes()
        rel = self.relative(path)
        for pattern, ignored in self.per_file_ignores:
            if _glob_match(rel, pattern):
                codes = frozenset(c for c in codes if not _matches_any(c, ignored))
        return codes

    # -- paths --------------------------------------------------------------------------------
    def relative(self, path: str) -> str:
        try:
            rel = os.path.relpath(os.path.abspath(path), self.root)
        except ValueError:  # different drive on Windows
            rel = path
        return rel.replace(os.sep, "/")

    def is_excluded(self, path: str, name_only: bool = False) -> bool:
        """Whether ``path`` matches an exclude pattern. Patterns without ``/`` match any path
        component; others match the path relative to the config's root. ``name_only`` is for
        directory walks, whose parents were already checked."""
        names, paths = self._exclude_matchers
        parts = [os.path.basename(os.path.normpath(path))] if name_only else self.relative(path).split("/")
        if names is not None and any(names.match(part) for part in parts):
            return True
        if paths is not None:
            rel = self.relative(path)
            return bool(paths.match(rel))
        return False

    @cached_property
    def _exclude_matchers(self) -> tuple:
        patterns = [p.rstrip("/") for p in self.exclude + self.extend_exclude if p.strip()]
        name_patterns = [p for p in patterns if "/" not in p]
        path_patterns = []
        for p in patterns:
            if "/" in p:
                p = p[3:] if p.startswith("**/") else p
                path_patterns += [p, p + "/*", "*/" + p, "*/" + p + "/*"]
        names = re.compile("|".join(fnmatch.translate(p) for p in name_patterns)) if name_patterns else None
        paths = re.compile("|".join(fnmatch.translate(p) for p in path_patterns)) if path_patterns else None
        return names, paths


def _matches_any(code: str, selectors: Iterable[str]) -> bool:
    return any(sel == "ALL" or code.startswith(sel) for sel in selectors)


def _glob_match(rel: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern + "/*"):
        return True
    if pattern.startswith("**/"):
        return _glob_match(rel, pattern[3:]) or fnmatch.fnmatch(rel, pattern[3:])
    return "/" not in pattern and any(fnmatch.fnmatch(part, pattern) for part in rel.split("/"))


def validate_selectors(selectors: Iterable[str], where: str) -> tuple[str, ...]:
    out = []
    for sel in selectors:
        if not isinstance(sel, str):
            raise ConfigError(f"{where}: expected rule codes as strings, got {sel!r}")
        sel = sel.strip().upper()
        if sel != "ALL" and not any(code.startswith(sel) for code in rule_codes()) or not sel:
            known = ", ".join(rule_codes())
            raise ConfigError(f"{where}: unknown rule code or prefix {sel!r} (known: {known})")
        out.append(sel)
    return tuple(out)


def find_pyproject(start: str) -> Optional[Path]:
    """The nearest ``pyproject.toml`` at or above ``start`` that has our table."""
    here = Path(start).resolve()
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                data = _read_toml(candidate)
            except ConfigError:
                raise
            if SECTION in data.get("tool", {}):
                return candidate
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        import tomllib  # Python >= 3.11
    except ModuleNotFoundError:  # pragma: no cover - Python 3.9/3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise ConfigError(f"{path}: reading pyproject.toml needs Python 3.11+ or the 'tomli' package") from None
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    return tuple(value)


def from_table(table: Any, path: Optional[Path]) -> Config:
    """Validate a ``[tool.hybridize-check]`` table and build a :class:`Config`."""
    where = f"{path}: [tool.{SECTION}]" if path else f"[tool.{SECTION}]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - set(KNOWN_KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known keys: {', '.join(KNOWN_KEYS)})")
    config = Config(root=str(path.parent) if path else os.getcwd(), source=str(path) if path else None)
    if "select" in table:
        config = replace(config, select=validate_selectors(_strings(table["select"], f"{where}.select"), f"{where}.select"))
    if "extend-select" in table:
        config = replace(config, extend_select=validate_selectors(
            _strings(table["extend-select"], f"{where}.extend-select"), f"{where}.extend-select"))
    if "ignore" in table:
        config = replace(config, ignore=validate_selectors(_strings(table["ignore"], f"{where}.ignore"), f"{where}.ignore"))
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where}.per-file-ignores: expected a table of glob = [codes]")
        entries = []
        for pattern, codes in pfi.items():
            entries.append((pattern, validate_selectors(_strings(codes, f"{where}.per-file-ignores.{pattern}"),
                                                        f"{where}.per-file-ignores.{pattern}")))
        config = replace(config, per_file_ignores=tuple(entries))
    if "exclude" in table:
        config = replace(config, exclude=_strings(table["exclude"], f"{where}.exclude"))
    if "extend-exclude" in table:
        config = replace(config, extend_exclude=_strings(table["extend-exclude"], f"{where}.extend-exclude"))
    if "respect-gitignore" in table:
        value = table["respect-gitignore"]
        if not isinstance(value, bool):
            raise ConfigError(f"{where}.respect-gitignore: expected true or false, got {value!r}")
        config = replace(config, respect_gitignore=value)
    return config


def load_config(start: Optional[str] = None, explicit: Optional[str] = None, isolated: bool = False) -> Config:
    """The configuration in effect: ``--config FILE``, else the nearest pyproject, else defaults."""
    if isolated:
        return Config()
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError(f"config file not found: {explicit}")
        data = _read_toml(path)
        table = data.get("tool", {}).get(SECTION, data if path.name != "pyproject.toml" else {})
        return from_table(table, path.resolve())
    found = find_pyproject(start or os.getcwd())
    if found is None:
        return Config()
    return from_table(_read_toml(found)["tool"][SECTION], found)


class Resolver:
    """The configuration of each file: the nearest ``pyproject.toml`` with our table above it
    (ruff's hierarchical discovery), or ``fallback`` (the one found from the current directory)
    when there is none; ``overrides`` (the command-line flags) is applied to each. Tables are read
    once per file and lookups are cached per directory."""

    def __init__(self, fallback: Config, overrides: Callable[[Config], Config] = lambda c: c):
        self.fallback = overrides(fallback)
        self._overrides = overrides
        self._by_dir: dict[str, Config] = {}
        self._by_file: dict[Path, Config] = {}

    @property
    def root(self) -> str:
        return self.fallback.root

    def for_path(self, path: str) -> Config:
        """The configuration of a file (or of a directory's entries, for a directory)."""
        absolute = os.path.abspath(path)
        return self.for_directory(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))

    def for_directory(self, directory: str) -> Config:
        cached = self._by_dir.get(directory)
        if cached is not None:
            return cached
        candidate = Path(directory) / "pyproject.toml"
        config: Optional[Config] = None
        if candidate.is_file():
            config = self._by_file.get(candidate)
            if config is None:
                data = _read_toml(candidate)
                if SECTION in data.get("tool", {}):
                    config = self._by_file[candidate] = self._overrides(from_table(data["tool"][SECTION], candidate))
        if config is None:
            parent = os.path.dirname(directory)
            config = self.fallback if parent == directory else self.for_directory(parent)
        self._by_dir[directory] = config
        return config


AnyConfig = Union[Config, Resolver]


def resolver(explicit: Optional[str] = None, isolated: bool = False,
             overrides: Callable[[Config], Config] = lambda c: c) -> AnyConfig:
    """What the CLI checks with: one configuration for every file with ``--config`` or
    ``--isolated``, else a :class:`Resolver` (each file's nearest table, this directory's as the
    fallback)."""
    if isolated or explicit is not None:
        return overrides(load_config(explicit=explicit, isolated=isolated))
    return Resolver(load_config(), overrides)


def parse_per_file_ignores(items: Iterable[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``--per-file-ignores 'tests/*:HY008,HY010'`` values."""
    out = []
    for item in items:
        pattern, sep, codes = item.rpartition(":")
        if not sep or not pattern:
            raise ConfigError(f"--per-file-ignores: expected PATTERN:CODE[,CODE...], got {item!r}")
        out.append((pattern, validate_selectors([c for c in codes.split(",") if c.strip()], "--per-file-ignores")))
    return tuple(out)
