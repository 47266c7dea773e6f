"""``hybridize-check`` / ``hybridize check``: the command-line edge of the checker.

Follows ruff's conventions (flags, output formats, exit codes): 0 no error remains (or everything
was fixed), 1 errors remain, 2 usage/config/IO/internal error. ruff has no warnings; ours (HY008
trace-time side effects, HY100 unused suppressions) are reported and counted but do not fail a
run, as pre-commit users expect, unless ``--exit-non-zero-on-warning`` asks them to. Library errors arrive as values or
typed exceptions and are turned into one ``hybridize-check: error: ...`` line here; no traceback
is shown unless ``HYBRIDIZE_CHECK_DEBUG=1``.
"""
from __future__ import annotations

import os
import sys
from dataclasses import replace
from typing import Optional, Sequence

import click

from .checker import CheckResult, FileResult, check_paths, process_data, write_atomic
from .config import AnyConfig, Config, ConfigError, parse_per_file_ignores, resolver, validate_selectors
from ..diagnostics import Severity
from .formats import FORMATS, RenderOptions
from .. import rules
from ... import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _split(values: Sequence[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _fail(message: str) -> "click.exceptions.Exit":
    click.echo(f"hybridize-check: error: {message}", err=True)
    return click.exceptions.Exit(EXIT_ERROR)


def _use_color(to_file: bool) -> bool:
    if to_file or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def _explain(code: str) -> str:
    rule = rules.ALL_RULES.get(code.upper())
    if rule is None:
        raise _fail(f"unknown rule code {code!r} (known: {', '.join(rules.ALL_RULES)})")
    parts = [f"{rule.code} ({rule.name}): {rule.summary}", "", rule.rationale, "", f"Fix: {rule.fix_advice}",
             f"Severity: {rule.severity.value}; fixable: {'yes' if rule.fixable else 'no'}"]
    for title, examples in (("Invalid", rule.invalid), ("Valid", rule.valid)):
        for ex in examples:
            parts += ["", f"{title} example:", ex.rstrip()]
    return "\n".join(parts) + "\n"


@click.command(name="rule", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("code", required=False)
@click.option("--all", "all_rules", is_flag=True, help="Explain every rule.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rule(code: Optional[str], all_rules: bool, output_format: str) -> None:
    """Explain a rule (`rule HY001`) or all of them (`rule --all`), as `ruff rule`."""
    if (code is None) == (not all_rules):
        raise _fail("give one rule code, or --all")
    codes = list(rules.ALL_RULES) if all_rules else [code.upper()]
    if output_format == "json":
        import json

        found = [rules.ALL_RULES.get(c) for c in codes]
        if None in found:
            raise _fail(f"unknown rule code {code!r} (known: {', '.join(rules.ALL_RULES)})")
        items = [{"code": r.code, "name": r.name, "summary": r.summary, "severity": r.severity.value,
                  "fixable": r.fixable, "explanation": _explain(r.code)} for r in found]
        click.echo(json.dumps(items if all_rules else items[0], indent=2))
        return
    click.echo("\n".join(_explain(c) for c in codes), nl=False)


# formats that carry each fix's edits (the others only say whether a finding is fixable)
_WITH_EDITS = ("json", "json-lines", "sarif", "rdjson")


def _count(n: int, noun: str) -> str:
    """``1 fix``, ``2 fixes``, ``3 errors``: English plurals of the nouns the summaries use."""
    plural = noun + ("es" if noun.endswith(("x", "s", "sh", "ch")) else "s")
    return f"{n} {noun if n == 1 else plural}"


def _found(errors: int, warnings: int) -> str:
    return " and ".join(([_count(errors, "error")] if errors or not warnings else []) +
                        ([_count(warnings, "warning")] if warnings else []))


def _summary(result: CheckResult, fixing: bool) -> str:
    """ruff's summary line; warnings (HY008, HY100) are counted as such, never as errors, before
    and after ``--fix`` alike."""
    findings = result.findings
    n = len(findings)
    warnings = sum(1 for f in findings if f.severity is Severity.WARNING)
    errors = n - warnings
    fixed = [sev for r in result.files for _, sev in r.fixed_findings]
    if fixing and fixed:
        fixed_warnings = sum(1 for sev in fixed if sev is Severity.WARNING)
        found = _found(errors + len(fixed) - fixed_warnings, warnings + fixed_warnings)
        return f"Found {found} ({len(fixed)} fixed, {n} remaining)."
    if n == 0:
        return "All checks passed!"
    fixable = sum(1 for f in findings if f.fixable)
    return f"Found {_found(errors, warnings)} ({fixable} fixable)."


def _hidden_fixes(result: CheckResult, unsafe: bool) -> str:
    """ruff's hint for fixes only ``--unsafe-fixes`` applies ("" when there are none)."""
    if unsafe:
        return ""
    hidden = sum(1 for f in result.findings if f.fix is not None and not f.fixable)
    if not hidden:
        return ""
    return f"{_count(hidden, 'fix')} available with `--unsafe-fixes` (they may change imperative behaviour).\n"


def _show_fixes(result: CheckResult) -> str:
    """``--show-fixes``: what ``--fix`` changed, per file and rule (ruff's layout)."""
    files = [r for r in result.files if r.fixed_findings]
    total = sum(len(r.fixed_findings) for r in files)
    if not total:
        return ""
    lines = [f"Fixed {_count(total, 'error')}:"]
    for r in files:
        lines.append(f"- {r.path}:")
        counts: dict[str, int] = {}
        for code, _ in r.fixed_findings:
            counts[code] = counts.get(code, 0) + 1
        for code, count in sorted(counts.items()):
            name = rules.ALL_RULES[code].name if code in rules.ALL_RULES else code
            lines.append(f"    {count} \u00d7 {code} ({name})")
    return "\n".join(lines) + "\n\n"


def _statistics(result: CheckResult, fmt: str = "concise") -> str:
    """Counts per rule; ``--output-format json`` gives ruff's JSON (code, name, count, fixable)."""
    counts: dict[str, int] = {}
    fixable: dict[str, bool] = {}
    for f in result.findings:
        counts[f.code] = counts.get(f.code, 0) + 1
        fixable[f.code] = fixable.get(f.code, False) or f.fixable
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if fmt == "json":
        import json

        return json.dumps([{"code": code, "name": rules.ALL_RULES[code].name, "count": count,
                            "fixable": fixable[code]} for code, count in ordered], indent=2) + "\n"
    width = max((len(str(c)) for c in counts.values()), default=1)
    lines = [f"{count:>{width}}\t{code}\t{'[*] ' if fixable[code] else '[ ] '}{rules.ALL_RULES[code].name}"
             for code, count in ordered]
    return "".join(line + "\n" for line in lines)


@click.command(name="check", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--output-format", "--format", "output_format", type=click.Choice(sorted(FORMATS)),
              default=None, help="Output format (default: full on a terminal, concise otherwise).")
@click.option("-o", "--output-file", type=click.Path(dir_okay=False), default=None,
              help="Write the report to FILE (atomically) instead of stdout.")
@click.option("--statistics", is_flag=True, help="Show counts per rule instead of each finding.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even if findings remain.")
@click.option("--fix/--no-fix", default=False, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change imperative behaviour.")
@click.option("--diff", is_flag=True, help="Show the fixes as a unified diff instead of writing them.")
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (comma-separated).")
@click.option("--extend-select", multiple=True, help="Rule codes or prefixes to enable in addition.")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--per-file-ignores", multiple=True, help="PATTERN:CODE[,CODE] to disable rules for files.")
@click.option("--exclude", multiple=True, help="Glob patterns to exclude (replaces the defaults).")
@click.option("--extend-exclude", multiple=True, help="Glob patterns to exclude in addition.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to paths given explicitly too.")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None,
              help="Skip files ignored by .gitignore / .git/info/exclude in directory walks (default: on).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="Read [tool.hybridize-check] from this file for every file, instead of each file's nearest pyproject.toml.")
@click.option("--isolated", is_flag=True, help="Ignore configuration files.")
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Worker processes (0 = one per CPU).")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only, no summary line.")
@click.option("--explain", metavar="CODE", default=None, help="Explain a rule and exit.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODES` to every line with a finding (adoption on legacy code).")
@click.option("--show-fixes", is_flag=True, help="List the fixes applied by --fix, per file and rule.")
@click.option("--stdin-filename", default=None, help="The name of the file when reading source from standard input (`-`).")
@click.option("--exit-non-zero-on-warning", is_flag=True,
              help="Exit 1 when warnings remain too (by default only errors fail a run).")
@click.option("--exit-non-zero-on-fix", is_flag=True,
              help="Exit 1 if any file was changed by --fix, even when no findings remain.")
@click.option("--fix-only", is_flag=True,
              help="Apply fixes (implies --fix) without reporting, or failing on, the findings that remain.")
@click.option("--show-settings", is_flag=True,
              help="Show the settings the first file of PATHS is checked with, and where they come from.")
@click.option("--show-files", is_flag=True, help="List the files PATHS expand to, each with the pyproject.toml it is checked with.")
@click.version_option(__version__, "--version", prog_name="hybridize-check", message="%(prog)s %(version)s")
@click.pass_context
def check(ctx: click.Context, paths: tuple[str, ...], output_format: Optional[str], output_file: Optional[str],
          statistics: bool, exit_zero: bool, fix: bool, unsafe_fixes: bool, diff: bool,
          select: tuple[str, ...], extend_select: tuple[str, ...], ignore: tuple[str, ...],
          per_file_ignores: tuple[str, ...], exclude: tuple[str, ...], extend_exclude: tuple[str, ...],
          force_exclude: bool, respect_gitignore: Optional[bool], config_file: Optional[str], isolated: bool, jobs: int, quiet: bool,
          explain: Optional[str], add_noqa: bool, show_fixes: bool, stdin_filename: Optional[str],
          exit_non_zero_on_warning: bool, exit_non_zero_on_fix: bool, fix_only: bool, show_settings: bool,
          show_files: bool) -> None:
    """Find constructs in hybrid_forward that break or change meaning under hybridize()."""
    try:
        code = _run(paths, output_format, output_file, statistics, exit_zero, fix, unsafe_fixes, diff,
                    select, extend_select, ignore, per_file_ignores, exclude, extend_exclude, force_exclude,
                    config_file, isolated, jobs, quiet, explain, show_fixes, stdin_filename,
                    exit_non_zero_on_warning, add_noqa, respect_gitignore, exit_non_zero_on_fix, fix_only,
                    show_settings, show_files)
    except click.exceptions.Exit:
        raise
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    except KeyboardInterrupt:
        raise _fail("interrupted") from None
    except Exception as exc:  # the CLI edge: never a traceback for users
        if os.environ.get("HYBRIDIZE_CHECK_DEBUG"):
            raise
        raise _fail(f"internal error: {type(exc).__name__}: {exc}") from None
    ctx.exit(code)


def _run(paths, output_format, output_file, statistics, exit_zero, fix, unsafe_fixes, diff, select,
         extend_select, ignore, per_file_ignores, exclude, extend_exclude, force_exclude, config_file,
         isolated, jobs, quiet, explain, show_fixes=False, stdin_filename=None,
         exit_non_zero_on_warning=False, add_noqa=False, respect_gitignore=None, exit_non_zero_on_fix=False,
         fix_only=False, show_settings=False, show_files=False) -> int:
    if explain:
        click.echo(_explain(explain), nl=False)
        return EXIT_CLEAN
    # the flags, validated once, then applied on top of each file's configuration
    flags: dict = {}
    if select:
        flags["select"] = validate_selectors(_split(select), "--select")
    extra_select = validate_selectors(_split(extend_select), "--extend-select") if extend_select else ()
    extra_ignore = validate_selectors(_split(ignore), "--ignore") if ignore else ()
    extra_pfi = parse_per_file_ignores(per_file_ignores) if per_file_ignores else ()
    if exclude:
        flags["exclude"] = tuple(_split(exclude))
    extra_exclude = tuple(_split(extend_exclude))
    if respect_gitignore is not None:
        flags["respect_gitignore"] = respect_gitignore

    def with_flags(found: Config) -> Config:
        return replace(found, extend_select=found.extend_select + extra_select, ignore=found.ignore + extra_ignore,
                       per_file_ignores=found.per_file_ignores + extra_pfi,
                       extend_exclude=found.extend_exclude + extra_exclude, **flags)

    config = resolver(explicit=config_file, isolated=isolated, overrides=with_flags)
    if show_settings or show_files:
        return _show(list(paths) or ["."], config, force_exclude, show_settings)
    if output_file is not None:
        parent = os.path.dirname(os.path.abspath(output_file))
        if not os.path.isdir(parent):
            raise _fail(f"cannot write {output_file}: directory {parent} does not exist")

    fix = fix or fix_only
    if diff and output_format not in (None, "full", "concise"):
        # a unified diff is its own format: never a diff inside (or beside) JSON, SARIF, XML, ...
        raise _fail(f"--diff prints a unified diff and cannot be combined with --output-format {output_format}")
    if add_noqa and (fix or diff):
        raise _fail("--add-noqa cannot be combined with --fix or --diff")
    mode = "add-noqa" if add_noqa else "diff" if diff else ("fix" if fix else "check")
    fmt_requested = output_format or ""
    from_stdin = list(paths) == ["-"]
    if "-" in paths and not from_stdin:
        raise _fail("`-` (standard input) cannot be combined with other paths")
    if from_stdin:
        result = _check_stdin(stdin_filename or "-", config, mode, unsafe_fixes, fmt_requested in _WITH_EDITS)
    else:
        result = check_paths(list(paths) or ["."], config, jobs=jobs, mode=mode, unsafe=unsafe_fixes,
                             force_exclude=force_exclude, with_edits=fmt_requested in _WITH_EDITS)
    if mode == "add-noqa":
        added = sum(r.fixed for r in result.files)
        if from_stdin and result.files and result.files[0].fixed_text is not None:
            click.echo(result.files[0].fixed_text, nl=False)
        io_errors = result.io_errors + [r.io_error for r in result.files if r.io_error]
        for message in io_errors:
            click.echo(f"hybridize-check: error: {message}", err=True)
        if not quiet:
            click.echo(f"Added {_count(added, 'noqa directive')}.", err=True)
        return EXIT_ERROR if io_errors else EXIT_CLEAN
    if from_stdin and mode == "fix":
        # ruff: the fixed source goes to standard output, the report to standard error
        fixed_text = result.files[0].fixed_text if result.files else None
        if fixed_text is not None:
            click.echo(fixed_text, nl=False)
        remaining = [f for f in result.findings if f.severity is Severity.ERROR or exit_non_zero_on_warning]
        if result.findings and not quiet:
            options = RenderOptions(color=False, lines_for=result.source_lines, root=config.root)
            click.echo(FORMATS["concise"](result.findings, options), err=True, nl=False)
        if not quiet:
            click.echo(_summary(result, True), err=True)
        if fix_only:
            remaining = []
        changed = exit_non_zero_on_fix and sum(r.fixed for r in result.files)
        return EXIT_FINDINGS if (remaining and not exit_zero) or changed else EXIT_CLEAN
    findings = result.findings
    io_errors = result.io_errors + [r.io_error for r in result.files if r.io_error]
    unreadable = len(io_errors)

    to_file = output_file is not None
    fmt = output_format or ("full" if (not to_file and sys.stdout.isatty()) else "concise")
    options = RenderOptions(color=_use_color(to_file) and fmt in ("full", "concise"),
                            lines_for=result.source_lines, root=config.root)
    if fix_only:
        fixed_total = sum(r.fixed for r in result.files)
        if not quiet:
            click.echo(f"Fixed {_count(fixed_total, 'error')}." if fixed_total else "No errors fixed.", err=True)
        code = EXIT_FINDINGS if exit_non_zero_on_fix and fixed_total else EXIT_CLEAN
    elif diff:
        text = "".join(r.diff for r in result.files if r.diff)
        fixable = sum(r.fixed for r in result.files)
        _emit(text, output_file)
        if not quiet:
            click.echo(f"Would fix {fixable} {'finding' if fixable == 1 else 'findings'}." if fixable
                       else "No findings would be fixed.", err=True)
        code = EXIT_FINDINGS if fixable and not exit_zero else EXIT_CLEAN
    else:
        text = _statistics(result, fmt) if statistics else FORMATS[fmt](findings, options)
        if fmt in ("full", "concise") and not quiet:
            if show_fixes and fix:
                text = _show_fixes(result) + text
            summary = _summary(result, fix)
            if unreadable and not findings:    # never "All checks passed!" over a path not checked
                summary = f"No findings in the files checked; {_count(unreadable, 'path')} could not be checked."
            text += summary + "\n" + _hidden_fixes(result, unsafe_fixes)
        _emit(text, output_file, options.color)
        failing = [f for f in findings if f.severity is Severity.ERROR or exit_non_zero_on_warning]
        changed = fix and exit_non_zero_on_fix and any(r.fixed for r in result.files)
        code = EXIT_FINDINGS if (failing and not exit_zero) or changed else EXIT_CLEAN
    for message in io_errors:
        click.echo(f"hybridize-check: error: {message}", err=True)
    if io_errors:
        return EXIT_ERROR
    return code


def _check_stdin(path: str, config: AnyConfig, mode: str, unsafe: bool, with_edits: bool) -> CheckResult:
    """Source from standard input, checked as if it were ``path`` (``--stdin-filename``): the
    path decides per-file ignores and how the findings are labelled; nothing is written."""
    data = click.get_binary_stream("stdin").read()
    config = config.for_path(path)
    if path != "-" and config.is_excluded(path):
        return CheckResult([FileResult(path, skipped=True)], [])
    result = process_data(path, data, config, "check" if mode == "diff" else mode, unsafe, with_edits,
                          write_back=False)
    return CheckResult([result], [])


def _show(paths: list[str], config: AnyConfig, force_exclude: bool, settings: bool) -> int:
    """``--show-files`` (each file PATHS expand to, tab, the configuration file it is checked
    with) and ``--show-settings`` (the resolved settings of the first of those files), as ruff's."""
    from .checker import collect_files

    files, errors = collect_files(paths, config, force_exclude)
    for message in errors:
        click.echo(f"hybridize-check: error: {message}", err=True)
    if errors:
        return EXIT_ERROR
    if not settings:
        for path in files:
            click.echo(f"{path}\t{config.for_path(path).source or '(defaults)'}")
        return EXIT_CLEAN
    if not files:
        raise _fail("no file to show the settings of")
    own = config.for_path(files[0])

    def strings(values) -> str:
        return "[" + ", ".join(f'"{v}"' for v in values) + "]"

    lines = [f"Resolved settings for: {files[0]}",
             f"Settings path: {own.source or '(defaults: no pyproject.toml with [tool.hybridize-check])'}",
             "",
             f'root = "{own.root}"',
             f"select = {strings(own.select)}",
             f"extend-select = {strings(own.extend_select)}",
             f"ignore = {strings(own.ignore)}",
             "per-file-ignores = {" + ", ".join(f'"{p}" = {strings(c)}' for p, c in own.per_file_ignores) + "}",
             f"exclude = {strings(own.exclude)}",
             f"extend-exclude = {strings(own.extend_exclude)}",
             f"respect-gitignore = {'true' if own.respect_gitignore else 'false'}",
             f"rules for this file = {strings(sorted(own.codes_for(files[0])))}"]
    click.echo("\n".join(lines))
    return EXIT_CLEAN


def _emit(text: str, output_file: Optional[str], color: bool = False) -> None:
    if output_file is None:
        if text:
            # click strips ANSI codes when stdout is not a tty unless told the colour is wanted
            click.echo(text, nl=False, color=color or None)
        return
    try:
        write_atomic(output_file, text.encode("utf-8"))
    except OSError as exc:
        raise _fail(f"cannot write {output_file}: {exc.strerror or exc}") from None
