"""The checker's library API: check text, files and directory trees; apply fixes.

For the transpiler and other callers::

    from hybridize.transpile.check.checker import check_source, check_paths
    from hybridize.transpile.check.config import Config, load_config

    findings = check_source(text, "model.py", Config())      # list[Finding], sorted
    result = check_paths(["src/"], load_config(), jobs=0)    # CheckResult
    result.findings, result.io_errors, result.files_checked

``check_source`` never raises for bad input: unparsable text becomes an HY000 finding. Paths are
expanded (directories recurse into ``*.py`` minus excludes), files without ``hybrid_forward`` are
skipped unparsed, the rest are checked in parallel worker processes (``jobs``: 0 = one per CPU),
and results are merged in a deterministic order (file, line, column).
"""
from __future__ import annotations

import dataclasses
import difflib
import gc
import multiprocessing
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence

from .config import AnyConfig, Config
from ..diagnostics import Applicability, Edit, Finding, Fix, Location, Severity, sorted_findings
from ..rules import META_UNUSED_NOQA, PARSE_ERROR
from ..source import SourceError, decode_source, mentions_hybrid_forward, parse_python, split_lines

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis import ModuleAnalysis

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
# file-level exemptions: ours, and flake8's (which ruff honours too, codes and all)
_FILE_NOQA = re.compile(
    r"#\s*(?P<tool>hybridize-check|flake8):\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
_CODE_SPLIT = re.compile(r"[\s,]+")
MAX_FIX_ROUNDS = 50
#: What a directory walk picks up.
SOURCE_SUFFIXES = (".py", ".ipynb")
#: Deep (but valid) expressions are analysed recursively; CPython's parser caps depth well below.
RECURSION_LIMIT = 12000
PARALLEL_THRESHOLD = 12
#: Cyclic-GC thresholds while a tree is checked (see :func:`_fewer_collections`).
GC_THRESHOLDS = (20000, 20, 20)


@dataclass
class FileResult:
    """The outcome for one file. ``io_error`` set means it could not be read at all (exit 2)."""

    path: str
    findings: list[Finding] = field(default_factory=list)
    io_error: Optional[str] = None
    skipped: bool = False
    fixed: int = 0
    diff: str = ""
    lines: Optional[list[str]] = None
    #: (code, severity) of each fix applied, for ``--show-fixes`` and the summary's counts
    fixed_findings: list[tuple[str, Severity]] = field(default_factory=list)
    #: the fixed text (set for ``--fix`` on standard input, which prints it instead of writing)
    fixed_text: Optional[str] = None
    #: (bytes, what failing to write them is called) a worker process hands to the parent, the
    #: only process that writes files (see :func:`_run_parallel`)
    pending_write: Optional[tuple[bytes, str]] = None


@dataclass
class CheckResult:
    files: list[FileResult]
    io_errors: list[str]

    @property
    def findings(self) -> list[Finding]:
        return sorted_findings([f for r in self.files for f in r.findings])

    @property
    def files_checked(self) -> int:
        return sum(1 for r in self.files if not r.skipped and r.io_error is None)

    @property
    def fixed(self) -> int:
        return sum(r.fixed for r in self.files)

    def source_lines(self, path: str) -> Optional[list[str]]:
        for r in self.files:
            if r.path == path:
                return r.lines
        return None


# ---------------------------------------------------------------------------------------------
# one text
def check_source(text: str, path: str, config: Optional[Config] = None, with_edits: bool = True) -> list[Finding]:
    """All findings for one module's text (suppressions applied, sorted).

    ``with_edits=False`` leaves fix edits empty (applicability and message are still set): the
    edits need libcst, which plain checking never has to import.
    """
    return analyse_source(text, path, config, with_edits)[0]


def analyse_source(text: str, path: str, config: Optional[Config] = None,
                   with_edits: bool = True) -> tuple[list[Finding], Optional["ModuleAnalysis"]]:
    """:func:`check_source` plus the semantic model the findings came from (``None`` when the
    text could not be analysed): the transpiler rewrites from the same model the rules saw."""
    config = config or Config()
    codes = config.codes_for(path)
    lines = split_lines(text)
    raw: list[Finding] = []
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, RECURSION_LIMIT))
    try:
        raw, analysis = _check(text, path, lines, with_edits)
    finally:
        sys.setrecursionlimit(limit)
    raw = [f for f in raw if f.code in codes]
    return sorted_findings(_apply_noqa(_dedupe(raw), lines, path, codes)), analysis


def _check(text: str, path: str, lines: list[str], with_edits: bool) -> tuple[list[Finding], Optional["ModuleAnalysis"]]:
    from ..analysis import analyze_index
    from ..analysis.index import build_index

    raw: list[Finding] = []
    analysis = None
    try:
        index = build_index(parse_python(text), lines)
    except SourceError as exc:
        raw.append(_parse_error(path, exc))
    else:
        try:
            analysis = analyze_index(index)
        except RecursionError:
            raw.append(_parse_error(path, SourceError("cannot analyse: code is nested too deeply")))
            analysis = None
        else:
            raw.extend(_parse_error(path, exc) for exc in analysis.errors)
            raw.extend(_run_rules(analysis.events, path, with_edits))
    return raw, analysis


def _parse_error(path: str, exc: SourceError) -> Finding:
    loc = Location(exc.row, exc.column)
    return Finding(path, PARSE_ERROR, exc.message, Severity.ERROR, loc, loc)


def _run_rules(events: Iterable, path: str, with_edits: bool) -> list[Finding]:
    from ..rules import rules_for

    out: list[Finding] = []
    for event in events:
        for rule in rules_for(event.kind):
            for report in rule.check(event):
                row, col, end_row, end_col = event.site.span(report.node)
                fix = report.fix(with_edits) if report.fix is not None else None
                if fix is not None and event.site.np_mode and not rule.np_fixable:
                    fix = None  # (its conversion emits the legacy API: see Rule.np_fixable)
                out.append(Finding(path, rule.code, report.message, report.severity or rule.severity,
                                   Location(row, col), Location(end_row, end_col), fix, event.site.chain))
    return out


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per (code, start): the same helper reached twice, or ``mx.nd`` inside ``mx.nd.x``."""
    best: dict[tuple, Finding] = {}
    for f in findings:
        # HY013: ``a * b + c`` holds two findings that start together (the inner product and the sum)
        key = (f.code, f.start, f.end) if f.code == "HY013" else (f.code, f.start)
        if key not in best or (f.end > best[key].end):
            best[key] = f
    # an API reference nested in a longer one (``mx.nd`` in ``mx.nd.relu``) is the same finding
    kept = []
    for f in best.values():
        if f.code == "HY007" and any(o is not f and o.code == "HY007" and o.start <= f.start and f.end <= o.end
                                     and (o.start, o.end) != (f.start, f.end) for o in best.values()):
            continue
        kept.append(f)
    return kept


def _parse_codes(text: Optional[str]) -> Optional[list[str]]:
    if text is None:
        return None
    return [c.upper() for c in _CODE_SPLIT.split(text.strip()) if c]


def _apply_noqa(findings: list[Finding], lines: list[str], path: str, codes: frozenset[str]) -> list[Finding]:
    """Drop suppressed findings and report suppressions that suppress nothing (HY100)."""
    from ..rules import ALL_RULES
    # ruff's directives are case-insensitive (``NOQA: HY010``, ``NoQA`` after the hash)
    # (one lower() of the whole text: per line it was ~50,000 calls on the benchmark's tree)
    text_has_noqa = "noqa" in "".join(lines).lower()
    if not text_has_noqa:
        return findings
    file_codes: Optional[list[str]] = None
    file_directive: Optional[tuple[int, int]] = None
    file_tool = ""
    line_directives: dict[int, tuple[Optional[list[str]], int]] = {}
    for number, line in enumerate(lines, start=1):
        if "noqa" not in line.lower():
            continue
        match = _FILE_NOQA.search(line)
        if match:
            file_directive = (number, match.start() + 1)
            file_tool = match.group("tool").lower()
            file_codes = _parse_codes(match.group("codes"))
            continue
        match = _NOQA.search(line)
        if match:
            line_directives[number] = (_parse_codes(match.group("codes")), match.start() + 1)
    kept: list[Finding] = []
    used: dict[int, set[str]] = {}
    file_used = False
    for f in findings:
        if f.code == PARSE_ERROR:
            kept.append(f)
            continue
        # a finding both the file-level and the line's directive cover uses both (neither is
        # reported unused by HY100: removing one of them alone would change nothing else)
        by_file = file_directive is not None and (file_codes is None or f.code in file_codes)
        file_used = file_used or by_file
        directive = line_directives.get(f.start.row)
        if directive is not None and (directive[0] is None or f.code in directive[0]):
            used.setdefault(f.start.row, set()).add(f.code)
            continue
        if by_file:
            continue
        kept.append(f)
    if META_UNUSED_NOQA not in codes:
        return kept
    for row, (dcodes, col) in sorted(line_directives.items()):
        if dcodes is None:
            continue  # a bare noqa comment may be meant for another tool
        ours = [c for c in dcodes if c.startswith("HY")]
        unused = [c for c in ours if c not in used.get(row, set())]
        if unused:
            loc = Location(row, col)
            keep = [c for c in dcodes if c not in unused]
            kept.append(Finding(path, META_UNUSED_NOQA, f"unused `noqa` directive: {', '.join(unused)} "
                                f"reported nothing on this line", ALL_RULES[META_UNUSED_NOQA].severity,
                                loc, Location(row, col + len(lines[row - 1].rstrip('\r\n')) - col + 1),
                                _noqa_fix(lines[row - 1], row, _NOQA, keep)))
    if file_directive is not None and not file_used and file_tool == "hybridize-check":  # flake8's may be for flake8
        row, col = file_directive
        kept.append(Finding(path, META_UNUSED_NOQA, "unused file-level `hybridize-check: noqa`: nothing to suppress",
                            ALL_RULES[META_UNUSED_NOQA].severity, Location(row, col), Location(row, col),
                            _noqa_fix(lines[row - 1], row, _FILE_NOQA, [])))
    return kept


def _noqa_fix(line: str, row: int, pattern: "re.Pattern[str]", keep: list[str]) -> Optional[Fix]:
    """HY100's fix: drop the unused codes from the directive, or the directive (with the space
    before it; the whole line if nothing else is on it) when no code is left."""
    match = pattern.search(line)
    if match is None:
        return None
    body = line.rstrip("\r\n")
    if keep:
        head = body[match.start():match.start("codes")] if match.group("codes") else body[match.start():match.end()] + ": "
        new = head + ", ".join(keep)
        return Fix("Remove the unused codes", (Edit(Location(row, match.start() + 1), Location(row, match.end() + 1), new),))
    start = match.start()
    while start > 0 and body[start - 1] in " \t":
        start -= 1
    if start == 0 and match.end() == len(body):  # the directive is the whole line
        return Fix("Remove the unused directive", (Edit(Location(row, 1), Location(row + 1, 1), ""),))
    return Fix("Remove the unused directive", (Edit(Location(row, start + 1), Location(row, match.end() + 1), ""),))


def add_noqa_source(text: str, path: str, config: Optional[Config] = None) -> tuple[str, int]:
    """``--add-noqa``: a ``# noqa: CODES`` directive on the line of every finding (merged into a
    directive already there), so a legacy code base can adopt the checker and fix later.
    Lines ending in a backslash continuation are left alone (a comment would end the line)."""
    lines = split_lines(text)
    wanted: dict[int, set[str]] = {}
    for f in check_source(text, path, config, with_edits=False):
        if f.code in (PARSE_ERROR, META_UNUSED_NOQA) or not 0 < f.start.row <= len(lines):
            continue
        wanted.setdefault(f.start.row, set()).add(f.code)
    added = 0
    for row, new_codes in sorted(wanted.items()):
        line = lines[row - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if body.endswith("\\"):
            continue
        match = _NOQA.search(body)
        if match is not None and match.group("codes") is None:
            continue  # a bare noqa comment already silences everything
        if match is not None:
            codes = _parse_codes(match.group("codes")) or []
            merged = codes + sorted(c for c in new_codes if c not in codes)
            body = body[:match.start()] + "# noqa: " + ", ".join(merged) + body[match.end():]
        else:
            body = body + "  # noqa: " + ", ".join(sorted(new_codes))
        lines[row - 1] = body + ending
        added += 1
    return "".join(lines), added


# ---------------------------------------------------------------------------------------------
# fixes
def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits (1-based row/column locations) to ``text``."""
    lines = split_lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(loc: Location) -> int:
        if loc.row - 1 >= len(lines):
            return len(text)
        return starts[loc.row - 1] + loc.column - 1

    out = text
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        out = out[: offset(edit.start)] + edit.content + out[offset(edit.end):]
    return out


def fix_source(text: str, path: str, config: Optional[Config] = None, unsafe: bool = False,
               applied: Optional[list[tuple[str, Severity]]] = None,
               exact: bool = False) -> tuple[str, int, list[Finding]]:
    """Apply fixes until none apply; returns (new text, number of fixes applied, remaining findings).

    ``applied``, if given, receives the (code, severity) of every fix applied. ``exact``: never apply
    a fix that may change what the code computes (:attr:`Fix.changes_results`), even with
    ``unsafe``: the conversions of ``hybridize transpile``. Every round re-checks the text, so a
    fix skipped for aliasing stays skipped until the aliasing itself is gone.

    A fix is safe or unsafe by what it is, not by the round it is reached in: a finding whose fix
    was unsafe in any round stays unsafe in the later ones (an earlier safe fix can remove the
    reason, e.g. the in-place write that made an ``if`` conversion unsafe), so plain ``--fix``
    applies exactly what the summary calls safe and ``--diff`` shows the same set."""
    config = config or Config()
    fixed = 0
    findings = check_source(text, path, config)
    judged_unsafe: set[tuple[str, str, int]] = set()
    for _ in range(MAX_FIX_ROUNDS):
        chosen: list[Fix] = []
        picked: list[tuple[str, Severity]] = []
        taken: list[tuple[Location, Location]] = []
        keys = _finding_keys(text, findings)
        judged_unsafe.update(k for f, k in zip(findings, keys)
                             if f.fix is not None and f.fix.applicability is Applicability.UNSAFE)
        for f, key in zip(findings, keys):
            if f.fix is None or (exact and f.fix.changes_results):
                continue
            if not unsafe and (f.fix.applicability is Applicability.UNSAFE or key in judged_unsafe):
                continue
            spans = [(e.start, e.end) for e in f.fix.edits]
            if any(s < te and ts < e for s, e in spans for ts, te in taken):
                continue  # overlaps a fix already chosen this round; next round re-checks
            chosen.append(f.fix)
            taken.extend(spans)
            picked.append((f.code, f.severity))
        if not chosen:
            break
        new_text = apply_edits(text, [e for fix in chosen for e in fix.edits])
        if new_text == text:
            break
        text = new_text
        fixed += len(chosen)
        if applied is not None:
            applied.extend(picked)
        findings = check_source(text, path, config)
    if judged_unsafe:  # what remains is reported with the verdict that kept it unapplied
        findings = [_as_unsafe(f) if f.fix is not None and f.fix.applicability is Applicability.SAFE
                    and k in judged_unsafe else f for f, k in zip(findings, _finding_keys(text, findings))]
    return text, fixed, findings


def _as_unsafe(finding: Finding) -> Finding:
    return dataclasses.replace(finding, fix=dataclasses.replace(finding.fix, applicability=Applicability.UNSAFE))


def _finding_keys(text: str, findings: Sequence[Finding]) -> list[tuple[str, str, int]]:
    """A key per finding that survives edits elsewhere in the file: its code, the stripped text of
    the line it starts on, and its rank among findings with the same code and line text."""
    lines = split_lines(text)
    seen: dict[tuple[str, str], int] = {}
    keys = []
    for f in findings:
        row = f.start.row - 1
        line = lines[row].strip() if 0 <= row < len(lines) else ""
        rank = seen.get((f.code, line), 0)
        seen[(f.code, line)] = rank + 1
        keys.append((f.code, line, rank))
    return keys


# ---------------------------------------------------------------------------------------------
# files
#: the largest source file checked (generated modules reach a few MB); the variable raises it
MAX_SOURCE_BYTES = 64 * 1024 * 1024
MAX_SOURCE_BYTES_ENV = "HYBRIDIZE_MAX_SOURCE_BYTES"


def _read_bytes(path: str) -> bytes:
    """A source file: regular files only (a FIFO would block), at most ``MAX_SOURCE_BYTES``."""
    from ...readers import cap_from_env, read_capped

    return read_capped(path, cap_from_env(MAX_SOURCE_BYTES_ENV, MAX_SOURCE_BYTES), "a source file",
                       MAX_SOURCE_BYTES_ENV)


def _encoding_of(data: bytes) -> tuple[str, bool]:
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    bom = data.startswith(b"\xef\xbb\xbf")
    return ("utf-8" if encoding == "utf-8-sig" else encoding), bom


def write_atomic(path: str, data: bytes) -> None:
    """Replace ``path``'s content with ``data`` atomically, keeping its mode (:mod:`hybridize.atomic`)."""
    from ...atomic import write_bytes

    write_bytes(path, data)


#: set in worker processes: they hand fixed files to the parent instead of writing them, so that
#: a killed run never leaves a worker writing on its own
_IN_WORKER = False


def _write_back(result: FileResult, path: str, data: bytes, what: str) -> None:
    if _IN_WORKER:
        result.pending_write = (data, what)
    else:
        write_atomic(path, data)


def process_file(path: str, config: Config, mode: str = "check", unsafe: bool = False,
                 with_edits: bool = False) -> FileResult:
    """Check (``mode="check"``), fix in place (``"fix"``), preview fixes (``"diff"``) or add
    ``# noqa`` directives for every finding (``"add-noqa"``) in one file."""
    try:
        data = _read_bytes(path)
    except OSError as exc:
        return FileResult(path, io_error=f"{path}: cannot read: {exc.strerror or exc}")
    return process_data(path, data, config, mode, unsafe, with_edits)


def process_data(path: str, data: bytes, config: Config, mode: str = "check", unsafe: bool = False,
                 with_edits: bool = False, write_back: bool = True) -> FileResult:
    """Like :func:`process_file` for bytes already read (standard input: ``write_back=False``
    leaves the fixed text in ``FileResult.fixed_text`` instead of writing ``path``)."""
    if not mentions_hybrid_forward(data):
        result = _unmarked(path, data, config)
        if not write_back:
            result.fixed_text = data.decode("utf-8", "replace")
        return result
    if path.endswith(".ipynb"):
        return _process_notebook(path, data, config, mode, unsafe, with_edits, write_back)
    try:
        text = decode_source(data)
    except SourceError as exc:
        codes = config.codes_for(path)
        found = [_parse_error(path, exc)] if PARSE_ERROR in codes else []
        return FileResult(path, findings=found)
    if mode == "check":
        findings = check_source(text, path, config, with_edits)
        return FileResult(path, findings=findings, lines=split_lines(text) if findings else None)
    if mode == "add-noqa":
        new_text, added = add_noqa_source(text, path, config)
        result = FileResult(path, fixed=added)
        if added and write_back:
            encoding, bom = _encoding_of(data)
            try:
                _write_back(result, path, (b"\xef\xbb\xbf" if bom else b"") + new_text.encode(encoding), "cannot write")
            except (OSError, UnicodeEncodeError) as exc:
                result.io_error = f"{path}: cannot write: {exc}"
        elif not write_back:
            result.fixed_text = new_text
        return result
    applied: list[tuple[str, Severity]] = []
    new_text, fixed, findings = fix_source(text, path, config, unsafe, applied)
    result = FileResult(path, findings=findings, fixed=fixed, lines=split_lines(new_text) if findings else None,
                        fixed_findings=applied)
    if fixed and new_text != text:
        if mode == "diff":
            result.diff = "".join(difflib.unified_diff(
                split_lines(text), split_lines(new_text), fromfile=path, tofile=path))
            result.findings = check_source(text, path, config)
            result.lines = split_lines(text)
        elif not write_back:
            result.fixed_text = new_text
        else:
            encoding, bom = _encoding_of(data)
            try:
                payload = (b"\xef\xbb\xbf" if bom else b"") + new_text.encode(encoding)
                _write_back(result, path, payload, "cannot write the fixed file")
            except (OSError, UnicodeEncodeError) as exc:
                result.io_error = f"{path}: cannot write the fixed file: {exc}"
    elif not write_back:
        result.fixed_text = text
    return result


def _process_notebook(path: str, data: bytes, config: Config, mode: str, unsafe: bool, with_edits: bool,
                      write_back: bool) -> FileResult:
    """A notebook's code cells as one module (see :mod:`.notebook`), findings in cell coordinates."""
    import dataclasses

    from . import notebook

    try:
        nb = notebook.load(data)
    except SourceError as exc:
        return FileResult(path, findings=[_parse_error(path, exc)] if PARSE_ERROR in config.codes_for(path) else [])
    if nb is None:
        return FileResult(path, skipped=True)

    def in_cells(findings: list[Finding]) -> list[Finding]:
        out = []
        for f in findings:
            cell, row = nb.locate(f.start.row)
            _, end_row = nb.locate(f.end.row)
            fix = f.fix
            if fix is not None:  # edits are applied to the virtual module only; shown per cell
                fix = Fix(fix.message, tuple(Edit(Location(nb.locate(e.start.row)[1], e.start.column),
                                                  Location(nb.locate(e.end.row)[1], e.end.column), e.content)
                                             for e in fix.edits), fix.applicability, fix.changes_results)
            message = re.sub(r"\bline (\d+)\b", lambda m: "cell {} line {}".format(*nb.locate(int(m.group(1)))), f.message)
            out.append(dataclasses.replace(f, cell=cell, start=Location(row, f.start.column), message=message,
                                           end=Location(end_row, f.end.column), fix=fix))
        return sorted_findings(out)

    if mode in ("check", "diff"):
        findings = check_source(nb.text, path, config, with_edits)
        if mode == "check":
            return FileResult(path, findings=in_cells(findings))
    if mode == "add-noqa":
        new_text, added = add_noqa_source(nb.text, path, config)
        result = FileResult(path, fixed=added)
    else:
        applied: list[tuple[str, Severity]] = []
        new_text, fixed, findings = fix_source(nb.text, path, config, unsafe, applied)
        result = FileResult(path, findings=in_cells(findings), fixed=fixed, fixed_findings=applied)
    if new_text == nb.text:
        return result
    try:
        payload = nb.with_text(new_text)
    except SourceError as exc:
        result.io_error = f"{path}: {exc.message}"
        return result
    if mode == "diff":
        result.diff = "".join(difflib.unified_diff(split_lines(data.decode("utf-8", "replace")),
                                                   split_lines(payload.decode("utf-8")), fromfile=path, tofile=path))
        result.findings = in_cells(check_source(nb.text, path, config))
    elif not write_back:
        result.fixed_text = payload.decode("utf-8")
    else:
        try:
            _write_back(result, path, payload, "cannot write the fixed notebook")
        except OSError as exc:
            result.io_error = f"{path}: cannot write the fixed notebook: {exc}"
    return result


def collect_files(paths: Sequence[str], config: AnyConfig, force_exclude: bool = False) -> tuple[list[str], list[str]]:
    """Expand ``paths`` into files to check. Returns (files, errors for missing paths).

    Directory walks skip excluded and (``respect_gitignore``) git-ignored files, each directory's
    entries judged by that directory's configuration (``config.for_path``: a :class:`Resolver`
    finds the nearest ``pyproject.toml``); files named explicitly are always checked unless
    ``force_exclude``, as in ruff."""
    from .gitignore import is_ignored

    files: list[str] = []
    errors: list[str] = []
    seen: set[str] = set()
    for given in paths:
        if not os.path.exists(given):
            errors.append(f"{given}: no such file or directory")
            continue
        if os.path.isdir(given):
            own = config.for_path(given)
            if force_exclude and own.is_excluded(given) and os.path.abspath(given) != os.path.abspath(own.root):
                continue
            for dirpath, dirnames, filenames in os.walk(given):
                here = config.for_path(dirpath)
                gitignored = is_ignored if here.respect_gitignore else None
                dirnames[:] = sorted(d for d in dirnames if not here.is_excluded(os.path.join(dirpath, d), name_only=True)
                                     and not (gitignored and gitignored(os.path.join(dirpath, d), True)))
                for name in sorted(filenames):
                    if name.endswith(SOURCE_SUFFIXES):
                        full = os.path.join(dirpath, name)
                        full = full[2:] if full.startswith("./") else full
                        if (not here.is_excluded(full, name_only=True) and full not in seen
                                and not (gitignored and gitignored(full, False))):
                            seen.add(full)
                            files.append(full)
        else:
            own = config.for_path(given)
            if force_exclude and (own.is_excluded(given) or (own.respect_gitignore and is_ignored(given, False))):
                continue
            if given not in seen:
                seen.add(given)
                files.append(given)
    return files, errors


def _worker(args: tuple[list[tuple[str, Config]], str, bool, bool]) -> list[FileResult]:
    todo, mode, unsafe, with_edits = args
    return [_safe_process(p, config, mode, unsafe, with_edits) for p, config in todo]


def _safe_process(path: str, config: Config, mode: str, unsafe: bool, with_edits: bool) -> FileResult:
    try:
        return process_file(path, config, mode, unsafe, with_edits)
    except RecursionError:
        loc = Location(1, 1)
        return FileResult(path, findings=[Finding(path, PARSE_ERROR, "cannot analyse: code is nested too deeply",
                                                  Severity.ERROR, loc, loc)])
    except Exception as exc:  # an internal error in one file must not hide the others
        return FileResult(path, io_error=f"{path}: internal error: {type(exc).__name__}: {exc}")


def _prefilter(files: list[str], config: AnyConfig) -> tuple[list[tuple[str, Config]], list[FileResult]]:
    """Split into files worth a worker, each with its configuration, and immediately known
    results (skipped or unreadable)."""
    todo: list[tuple[str, Config]] = []
    done: list[FileResult] = []
    for path in files:
        try:
            data = _read_bytes(path)
        except OSError as exc:
            done.append(FileResult(path, io_error=f"{path}: cannot read: {exc.strerror or exc}"))
            continue
        own = config.for_path(path)
        if mentions_hybrid_forward(data):
            todo.append((path, own))
        else:
            done.append(_unmarked(path, data, own))
    return todo, done


def _unmarked(path: str, data: bytes, config: Config) -> FileResult:
    """A file without ``hybrid_forward`` has nothing for the rules, but one CPython rejects is still
    HY000 (as ruff reports a syntax error in any file it checks); otherwise it is skipped."""
    if path.endswith(".ipynb") or PARSE_ERROR not in config.codes_for(path):
        return FileResult(path, skipped=True)
    try:
        parse_python(decode_source(data))
    except SourceError as exc:
        return FileResult(path, findings=[_parse_error(path, exc)])
    return FileResult(path, skipped=True)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def check_paths(paths: Sequence[str], config: Optional[AnyConfig] = None, jobs: int = 0, mode: str = "check",
                unsafe: bool = False, force_exclude: bool = False, with_edits: bool = False) -> CheckResult:
    """Check files and directories (see the module docstring). ``mode`` is ``"check"``, ``"fix"``
    (write fixes in place) or ``"diff"`` (compute them only); ``with_edits`` fills fix edits in
    check mode (JSON output shows them). ``config`` is one :class:`Config` for every file or a
    :class:`~.config.Resolver` (each file's nearest ``pyproject.toml``)."""
    config = config or Config()
    files, errors = collect_files(paths, config, force_exclude)
    todo, results = _prefilter(files, config)
    jobs = jobs or default_jobs()
    if todo:
        from .. import analysis, rules  # noqa: F401  (import once before forking workers)
    with _fewer_collections():
        if jobs > 1 and len(todo) >= PARALLEL_THRESHOLD:
            # Every worker runs the rules, whose modules import the conversions (the fixes):
            # loaded here, once, not in each forked worker (without .pyc files that is ~0.1 s of
            # compiling per worker).
            rules.ALL_RULES  # noqa: B018
            results.extend(_run_parallel(todo, mode, unsafe, jobs, with_edits))
        else:
            results.extend(_worker((todo, mode, unsafe, with_edits)))
    results.sort(key=lambda r: r.path)
    return CheckResult(results, errors)


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Run the check with the cyclic garbage collector triggered less often (restored after).

    Parsing and the analysis allocate millions of short-lived objects, freed by reference
    counting, and few cycles; at CPython's default thresholds (700, 10, 10) the collector also
    walks every live object (the tree being analysed, our modules) every 70,000 allocations.
    ``GC_THRESHOLDS`` cut ~2.5% of the instructions of checking the benchmark's generated tree
    (callgrind); memory stays bounded (a collection still runs every 20,000 net allocations).
    Forked workers inherit the setting. A collector disabled by threshold 0 stays disabled.
    """
    old = gc.get_threshold()
    if old[0] > 0:
        gc.set_threshold(*(max(mine, theirs) for mine, theirs in zip(GC_THRESHOLDS, old)))
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _run_parallel(todo: list[tuple[str, Config]], mode: str, unsafe: bool, jobs: int,
                  with_edits: bool) -> list[FileResult]:
    # Big files first, dealt round-robin: chunks of similar total work, one task per worker
    # chunk keeps the pickling overhead negligible.
    by_size = sorted(todo, key=lambda item: -_size(item[0]))
    nchunks = min(len(by_size), jobs * 4)
    chunks = [by_size[i::nchunks] for i in range(nchunks)]
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    context = multiprocessing.get_context(method)
    out: list[FileResult] = []
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker,
                             initargs=(os.getpid(),)) as pool:
        for batch in pool.map(_worker, [(chunk, mode, unsafe, with_edits) for chunk in chunks]):
            out.extend(batch)
    for result in out:  # the workers computed the fixes; only this process writes them
        if result.pending_write is not None:
            data, what = result.pending_write
            result.pending_write = None
            try:
                write_atomic(result.path, data)
            except OSError as exc:
                result.io_error = f"{result.path}: {what}: {exc}"
    return out


def _init_worker(parent: int) -> None:
    """A worker hands its writes to the parent and dies with it: a killed ``--fix`` leaves no
    worker behind (an orphan would go on working, then block forever on its result queue)."""
    global _IN_WORKER
    _IN_WORKER = True
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """SIGKILL this process when ``parent`` (its parent process) dies: ``PR_SET_PDEATHSIG`` on
    Linux, else a daemon thread that watches the parent's pid."""
    armed = False
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(1, int(signal.SIGKILL), 0, 0, 0) == 0   # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:      # the parent died before the signal was armed
        os._exit(1)
    if not armed:
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.2)
            os._exit(1)

        threading.Thread(target=watch, name="hybridize-parent-watch", daemon=True).start()


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
