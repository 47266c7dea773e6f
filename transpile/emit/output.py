"""Plan, transpile and atomically write output trees for ``hybridize transpile``.

* :func:`plan` validates the inputs and the output directory (one-line :class:`TranspileError` for
  a missing path, an output that is a file, an unwritable output, an output inside an input tree).
  Each input ``P`` is written at ``OUTDIR/<name of P>``; a directory keeps its tree (its ``*.py``
  files; hidden directories and ``__pycache__`` are skipped).
* :func:`transpile_inputs` checks and rewrites every module (in sorted order, so output and
  messages are deterministic) and returns a :class:`Report`.
* :func:`write_report` stages what was transpiled next to each final path and then swaps every input's
  tree (or module) into place as one set (:func:`hybridize.atomic.commit_all`). Without ``keep_going`` it writes nothing unless every
  module succeeded; with it, the modules that succeeded are written, the others left out.
"""
from __future__ import annotations

import ast

import contextlib
import os
import stat
from dataclasses import dataclass, field
from typing import Optional, Sequence

from .imports import Tree, package_of, resolve_relative
from .rewrite import Rewritten, analyse_for_transpile, blocking, imperative_source, rewrite_source

SKIP_DIRS = ("__pycache__",)
#: Never copied from an input tree: bytecode (the output's own is made when it is imported).
SKIP_SUFFIXES = (".pyc", ".pyo")


class TranspileError(Exception):
    """A problem with the inputs or the output location: one line, exit code 2."""


@dataclass(frozen=True)
class Input:
    path: str            # as given
    root: str            # absolute
    name: str            # OUTDIR/<name>
    files: tuple[str, ...]  # absolute paths of the modules, sorted
    tree: Tree
    data_files: tuple[str, ...] = ()  # absolute paths of the other files of a directory input, sorted
    #: symbolic links leaving the tree, not followed (without ``--follow-links``): (path, target)
    skipped_links: tuple[tuple[str, str], ...] = ()

    def label(self, file: str) -> str:
        if os.path.isdir(self.root):
            rel = os.path.relpath(file, self.root)
            return os.path.normpath(os.path.join(self.path, rel))
        return os.path.normpath(self.path)

    def target(self, file: str) -> str:
        """Path of ``file``'s output relative to OUTDIR."""
        if os.path.isdir(self.root):
            return os.path.join(self.name, os.path.relpath(file, self.root))
        return self.name


@dataclass
class FileOutcome:
    input: Input
    file: str
    label: str
    target: str
    result: Optional[Rewritten] = None
    error: Optional[str] = None   # unreadable / syntax error (exit 2)

    @property
    def ok(self) -> bool:
        return self.error is None and self.result is not None and not self.result.refused

    def code(self, keep_going: bool) -> Optional[str]:
        """What is written for this module: the rewrite, or with ``keep_going`` the refused
        module's fallback (see :class:`~.rewrite.Rewritten`)."""
        if self.result is None:
            return None
        if self.result.code is not None:
            return self.result.code
        return self.result.fallback if keep_going else None


@dataclass
class Report:
    outdir: Optional[str]
    files: list[FileOutcome] = field(default_factory=list)

    @property
    def written(self) -> list[FileOutcome]:
        return [f for f in self.files if f.ok]

    @property
    def refused(self) -> list[FileOutcome]:
        return [f for f in self.files if f.result is not None and f.result.refused]

    @property
    def errors(self) -> list[FileOutcome]:
        return [f for f in self.files if f.error is not None]

    def to_write(self, keep_going: bool) -> list[FileOutcome]:
        return [f for f in self.files if f.code(keep_going) is not None]

    @property
    def unsupported_apis(self) -> list[str]:
        """Every distinct MXNet name the runtime lacks (HY012), sorted."""
        from .surface import CODE

        names = set()
        for f in self.refused:
            for finding in f.result.findings:  # type: ignore[union-attr]
                if finding.code == CODE:
                    names.add(finding.message.split("`")[1])
        return sorted(names)

    @property
    def converted(self) -> int:
        return sum(f.result.converted for f in self.files if f.result is not None)

    def imperative_holders(self) -> list[tuple[str, str, str]]:
        """(module label, class, the imperative-only class it holds) for every block class of a
        converted module that builds, directly or through other classes of the tree, a block of a
        refused module (whose ``hybrid_forward`` is ``@imperative_only``). The runtime runs those
        blocks imperatively and ``hybridize()`` leaves them imperative
        (``runtime/gluon/static_graph.py``); the summary names them. A call is followed only where
        the module's imports (or its own classes) bind the called name to a class of the tree."""
        modules: dict[str, tuple[FileOutcome, ast.Module]] = {}
        for f in self.files:
            if f.result is None:
                continue
            try:
                modules[_module_name(f.file)] = (f, ast.parse(_read(f.file)))
            except (SyntaxError, ValueError, OSError):
                continue
        bindings = {name: _bindings(name, tree, modules) for name, (_, tree) in modules.items()}

        def resolve(target: tuple, depth: int = 0) -> Optional[tuple[str, str]]:
            kind, mod, name = target
            if kind != "class" or depth > 8:
                return None
            again = bindings.get(mod, {}).get(name)
            if again is not None and again != target:
                return resolve(again, depth + 1)  # a re-export (``from .gate import Gate`` in ``__init__``)
            return (mod, name) if mod in modules else None

        holds: dict[tuple[str, str], str] = {}
        for mod, (f, tree) in modules.items():
            if f.result is not None and f.result.refused:
                for cls in _block_classes(tree):
                    holds[(mod, cls.name)] = cls.name
        # each block class with the tree's classes its calls build, in call order (walked once,
        # not on every round of the fixpoint)
        builds: list[tuple[str, FileOutcome, str, list[tuple[str, str]]]] = []
        for mod, (f, tree) in modules.items():
            for cls in _block_classes(tree):
                keys = [resolve(key) for key in (_call_target(call, bindings[mod]) for call in _calls(cls))
                        if key is not None]
                builds.append((mod, f, cls.name, [key for key in keys if key is not None]))
        found: dict[tuple[str, str], str] = {}
        changed = True
        while changed:  # a block holding a block that holds an imperative-only one: to a fixpoint
            changed = False
            for mod, f, name, keys in builds:
                if (mod, name) in holds:
                    continue
                for key in keys:
                    if key in holds:
                        holds[(mod, name)] = holds[key]
                        if f.ok:
                            found[(f.label, name)] = holds[key]
                        changed = True
                        break
        return sorted((label, name, held) for (label, name), held in found.items())


def _module_name(file: str) -> str:
    package = package_of(file)
    stem = os.path.splitext(os.path.basename(file))[0]
    if stem == "__init__":
        return package or stem
    return f"{package}.{stem}" if package else stem


def _bindings(mod: str, tree: ast.Module, modules: dict) -> dict[str, tuple]:
    """Top-level names of module ``mod`` that stand for a class or a module of the tree:
    ``name -> ("class", module, class name)`` or ``("module", module, "")``."""
    package = mod if modules.get(mod) and os.path.basename(modules[mod][0].file) == "__init__.py" \
        else mod.rpartition(".")[0] or None
    out: dict[str, tuple] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = ("class", mod, node.name)
        elif isinstance(node, ast.ImportFrom):
            base = resolve_relative(package, node.level, node.module)
            if base is None:
                continue
            for alias in node.names:
                bound = alias.asname or alias.name
                full = f"{base}.{alias.name}"
                out[bound] = ("module", full, "") if full in modules else ("class", base, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in modules:
                    out[alias.asname] = ("module", alias.name, "")
    return out


def _block_classes(tree: Optional[ast.Module]) -> list[ast.ClassDef]:
    """Classes defining ``hybrid_forward`` (Gluon blocks) at any depth of ``tree``."""
    if tree is None:
        return []
    return [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            and any(isinstance(b, ast.FunctionDef) and b.name == "hybrid_forward" for b in node.body)]


def _calls(cls: ast.ClassDef) -> list[ast.Call]:
    return [node for node in ast.walk(cls) if isinstance(node, ast.Call)]


def _call_target(call: ast.Call, bindings: dict[str, tuple]) -> Optional[tuple]:
    """What ``Gate()`` or ``gate.Gate()`` calls, by the module's bindings."""
    func = call.func
    if isinstance(func, ast.Name):
        return bindings.get(func.id)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner = bindings.get(func.value.id)
        if owner is not None and owner[0] == "module":
            return ("class", owner[1], func.attr)
    return None


def _is_within(path: str, parent: str) -> bool:
    path, parent = os.path.realpath(path), os.path.realpath(parent)
    return path == parent or path.startswith(parent.rstrip(os.sep) + os.sep)


def _collect(root: str, follow_links: bool = False) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(modules, other files, links not followed) of an input: hidden directories and files,
    ``__pycache__`` and bytecode are skipped; everything else a package ships (data, configs, docs)
    is copied. Every entry is ``lstat``-ed first: a FIFO, device or socket is refused (reading it
    would block or never end); a symbolic link whose target leaves the tree is not followed unless
    ``follow_links`` (and then only to a regular file), so ``ln -s /dev/zero pkg/zero.bin`` cannot
    fill the disk."""
    from ...readers import kind_of

    if not os.path.isdir(root):
        return [root], [], []
    found, data, skipped = [], [], []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS)
        for d in dirnames:  # os.walk does not descend into linked directories: name those leaving
            path = os.path.join(dirpath, d)
            if os.path.islink(path) and not _is_within(path, root):
                skipped.append((path, os.path.realpath(path)))
        for f in sorted(filenames):
            path = os.path.join(dirpath, f)
            if f.startswith(".") and not f.endswith(".py") or f.endswith(SKIP_SUFFIXES):
                continue
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                target = os.path.realpath(path)
                if not _is_within(target, root) and not follow_links:
                    skipped.append((path, target))
                    continue
                try:
                    mode = os.stat(path).st_mode
                except OSError:
                    skipped.append((path, target))  # a dangling link
                    continue
            if not stat.S_ISREG(mode):
                raise TranspileError(f"{path}: is {kind_of(mode)}, not a regular file: refusing to read it "
                                     "(remove it from the tree)")
            (found if f.endswith(".py") else data).append(path)
    return sorted(found), sorted(data), sorted(skipped)


def plan_inputs(paths: Sequence[str], follow_links: bool = False) -> list[Input]:
    """Validate and expand the input paths (no output location involved)."""
    if not paths:
        raise TranspileError("no input paths given")
    inputs: list[Input] = []
    names: dict[str, str] = {}
    for given in paths:
        if not os.path.exists(given):
            raise TranspileError(f"{given}: no such file or directory")
        root = os.path.abspath(given)
        if not (os.path.isdir(root) or os.path.isfile(root)):
            raise TranspileError(f"{given}: not a regular file or directory")
        name = os.path.basename(root.rstrip(os.sep)) or "root"
        if name in names:
            raise TranspileError(f"{given} and {names[name]} would both be written as {name}")
        names[name] = given
        files, data, skipped = _collect(root, follow_links)
        inputs.append(Input(given, root, name, tuple(files), Tree.for_path(root, files), tuple(data), tuple(skipped)))
    return inputs


def check_outdir(outdir: str, inputs: Sequence[Input]) -> None:
    """Refuse an output that is a file, unwritable, or inside (or on top of) an input tree."""
    if os.path.exists(outdir) and not os.path.isdir(outdir):
        raise TranspileError(f"output {outdir} exists and is not a directory")
    for inp in inputs:
        target = os.path.join(outdir, inp.name)
        if os.path.isdir(inp.root) and _is_within(outdir, inp.root):
            raise TranspileError(f"output {outdir} is inside the input tree {inp.path}: refusing to write there")
        if _is_within(inp.root, target) or _is_within(target, inp.root):
            raise TranspileError(f"output {target} would overwrite the input {inp.path}")
    existing = os.path.abspath(outdir)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise TranspileError(f"cannot create output {outdir}: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise TranspileError(f"output directory {existing} is not writable")


def _read(path: str) -> str:
    from ...readers import cap_from_env, read_capped
    from ..check.checker import MAX_SOURCE_BYTES, MAX_SOURCE_BYTES_ENV
    from ..source import SourceError, decode_source

    try:
        data = read_capped(path, cap_from_env(MAX_SOURCE_BYTES_ENV, MAX_SOURCE_BYTES), "a source file",
                           MAX_SOURCE_BYTES_ENV)
    except OSError as exc:
        raise TranspileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return decode_source(data)
    except SourceError as exc:
        raise TranspileError(f"{path}:{exc.row}:{exc.column}: {exc.message}") from None


def _syntax_error(text: str, label: str) -> Optional[str]:
    from ..source import SourceError, parse_python

    try:
        parse_python(text)
    except SourceError as exc:
        return f"{label}:{exc.row}:{exc.column}: {exc.message}"
    return None


def transpile_file(inp: Input, file: str, config=None, convert: bool = True) -> FileOutcome:
    label = inp.label(file)
    outcome = FileOutcome(inp, file, label, inp.target(file))
    try:
        text = _read(file)
    except TranspileError as exc:
        outcome.error = str(exc).replace(file, label, 1)
        return outcome
    problem = _syntax_error(text, label)
    if problem is not None:
        outcome.error = problem
        return outcome
    from ..source import SourceError

    try:
        outcome.result = convert_module(text, file, inp.tree, label, config, convert)
    except SourceError as exc:
        outcome.error = f"{label}:{exc.row}:{exc.column}: {exc.message}"
    return outcome


def convert_module(text: str, file: str, tree: Tree, label: str, config=None, convert: bool = True) -> Rewritten:
    """Convert, check and rewrite one module (the pipeline of ``hybridize transpile``).

    1. Conversions (:func:`apply_conversions`): every rule fix, safe *and* unsafe, except those
       that may change what the code computes (``Fix.changes_results``: an in-place update another
       live reference observed, a view written through), applied to a fixpoint. What an applied
       unsafe fix may still change is invisible to the results: the caller's own input array is no
       longer updated in place, or branches assumed to have one shape fail loudly when the graph
       is built.
    2. What remains is checked (the checker's findings, plus HY012 for MXNet names the runtime
       lacks). No error left: the converted text is rewritten into ``@static_graph`` code.
    3. Checker errors left: the module is refused; its findings are those of the *original* text
       (lines as the user wrote them) and its fallback (``--keep-going``) is the original code,
       imports mapped and ``hybrid_forward`` left imperative. Only HY012 left: the converted
       rewrite is the fallback, its header naming the unsupported names.
    """
    from ..diagnostics import sorted_findings
    from .surface import surface_findings

    package = package_of(file)
    original, analysis = analyse_for_transpile(text, label, config)
    converted_text, applied, findings = text, 0, original
    if convert and any(f.fix is not None for f in original):
        converted_text, applied = apply_conversions(text, label, config)
        if applied:
            findings, analysis = analyse_for_transpile(converted_text, label, config)
    surface = surface_findings(converted_text, file, package, tree, label, config)
    if blocking(findings):
        if applied:  # report (and fall back to) the code as written
            findings = original
            surface = surface_findings(text, file, package, tree, label, config)
        every = sorted_findings(findings + surface)
        result = Rewritten(label, None, every)
        result.fallback = imperative_source(text, file, every, tree, label)
        return result
    result = rewrite_source(converted_text, file, tree, label, config, findings=findings, analysis=analysis,
                            notes=surface)
    result.converted = applied
    result.converted_codes = _converted_codes(original, findings) if applied else []
    if surface:
        result.findings = sorted_findings(findings + surface)
        result.fallback, result.code = result.code, None
    return result


def apply_conversions(text: str, label: str, config=None) -> tuple[str, int]:
    """The conversions ``hybridize transpile`` applies (see :func:`convert_module`): ``fix_source``
    with unsafe fixes but only exact ones; the original text if the result does not parse (a
    converter bug must not break the transpile). The tools that measure and verify conversions
    call this, so they see exactly what transpile emits."""
    from ..check.checker import fix_source
    from ..source import SourceError, parse_python

    new_text, applied, _ = fix_source(text, label, config, unsafe=True, exact=True)
    try:
        parse_python(new_text)
    except SourceError:
        return text, 0
    return new_text, applied


def _converted_codes(before: list, after: list) -> list[str]:
    """Codes of the findings the conversions removed (a multiset difference, sorted)."""
    from collections import Counter

    gone = Counter(f.code for f in before) - Counter(f.code for f in after)
    return sorted(gone.elements())


def transpile_inputs(inputs: Sequence[Input], config=None, stop_early: bool = False,
                     convert: bool = True) -> Report:
    report = Report(None)
    for inp in inputs:
        for file in inp.files:
            outcome = transpile_file(inp, file, config, convert)
            report.files.append(outcome)
            if stop_early and outcome.error is not None:
                return report
    return report


def write_report(report: Report, inputs: Sequence[Input], outdir: str, keep_going: bool = False) -> list[str]:
    """Write the successful modules (with ``keep_going`` also the refused modules' fallbacks) and
    every input directory's other files under ``outdir``; returns the targets written.

    Each input's output (``OUTDIR/<name>``, a tree or one module) is staged beside its final path
    and the targets are committed as a set (:func:`hybridize.atomic.commit_all`): nothing is
    swapped in until every input's output is fully staged and a journal names them all; a kill at
    any moment leaves either every target old or, once the next run into ``outdir`` (or any
    write there) has completed the journal, every target new (docs/guarantees.md)."""
    from ...atomic import StagedFile, StagedTree, commit_all, recover

    outdir_abs = os.path.abspath(outdir)
    created = not os.path.exists(outdir_abs)
    staged: list = []
    current = outdir_abs      # what is being written, for the one-line error
    try:
        try:
            os.makedirs(outdir_abs, exist_ok=True)
            recover(outdir_abs)   # a set commit a killed run left half done is finished first
            by_input: dict[str, list[FileOutcome]] = {}
            for outcome in report.to_write(keep_going):
                by_input.setdefault(outcome.input.name, []).append(outcome)
            for inp in inputs:
                outcomes = by_input.get(inp.name)
                if not outcomes:
                    continue
                final = current = os.path.join(outdir_abs, inp.name)
                if os.path.isdir(inp.root):
                    tree = StagedTree(final)
                    staged.append(tree)
                    for outcome in outcomes:
                        tree.write_text(os.path.relpath(outcome.target, inp.name),
                                        outcome.code(keep_going))  # type: ignore[arg-type]
                    for data in inp.data_files:
                        tree.copy_file(data, os.path.relpath(data, inp.root))
                else:
                    single = StagedFile(final)
                    staged.append(single)
                    single.write(outcomes[0].code(keep_going).encode("utf-8"))  # type: ignore[union-attr]
        except OSError as exc:
            raise TranspileError(f"cannot write {current}: {exc.strerror or exc}") from None
        try:
            commit_all(staged)
        except OSError as exc:
            raise TranspileError(f"cannot write {exc.filename or outdir_abs}: {exc.strerror or exc}") from None
        return [item.final for item in staged]
    except BaseException:
        for item in staged:
            item.discard()
        if created:
            with contextlib.suppress(OSError):
                os.rmdir(outdir_abs)  # only if still empty
        raise
