"""``hybridize transpile``: MXNet Gluon source -> static graph-building modules on ``hybridize.runtime``.

    hybridize transpile PATHS... -o OUTDIR [--keep-going] [--no-convert]
    hybridize transpile PATHS... --diff [--keep-going]      (every module, nothing written)
    hybridize transpile --show FILE [--diff] [PATHS...]

Each module is converted first (every rule's fix, see ``output.convert_module``), then checked;
what is still an error refuses the module, and so does an ``mxnet`` name the runtime lacks (HY012).
Exit codes: 0 everything written; 1 a module was refused (its findings are printed in the
checker's format, and the summary names every refused module and unsupported API); 2 bad input
or output (a path that does not exist, a syntax error, an output that is a file, unwritable or
inside an input tree), one line on stderr. Without ``--keep-going`` nothing is written unless every
module converted; with it, the whole package is written: refused modules with their imports
mapped and ``hybrid_forward`` left imperative (``@imperative_only``), and the summary names the
converted blocks that hold one of theirs (they run imperatively: ``runtime/gluon/static_graph.py``).
Non-Python files of an input directory are copied. Output is staged beside its final place and
swapped in atomically, the targets ``OUTDIR/<name>`` as one set once every target is staged (a
kill while they are swapped is completed by the next run into OUTDIR: all old or all new;
docs/guarantees.md).
"""
from __future__ import annotations

import difflib
import os
import sys
from typing import Optional

import click

from ...atomic import recover
from ...messages import printable
from .output import Input, Report, TranspileError, check_outdir, plan_inputs, transpile_file, transpile_inputs, write_report

EXIT_OK, EXIT_REFUSED, EXIT_ERROR = 0, 1, 2
PROG = "hybridize transpile"


def _fail(message: str) -> click.exceptions.Exit:
    click.echo(printable(f"{PROG}: error: {message}"), err=True)
    return click.exceptions.Exit(EXIT_ERROR)


def _render_findings(report: Report, fmt: Optional[str]) -> str:
    from ..check.formats import FORMATS, RenderOptions
    from ..source import split_lines

    refused = report.refused
    findings = [f for o in refused for f in o.result.blocking]  # type: ignore[union-attr]
    texts: dict[str, list[str]] = {}
    for o in refused:
        try:
            with open(o.file, encoding="utf-8", errors="replace") as handle:
                texts[o.label] = split_lines(handle.read())
        except OSError:
            pass
    fmt = fmt or ("full" if sys.stdout.isatty() else "concise")
    color = fmt in ("full", "concise") and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    from ..diagnostics import sorted_findings
    return FORMATS[fmt](sorted_findings(findings), RenderOptions(color=color, lines_for=texts.get))


def _config(config_file: Optional[str], isolated: bool):
    from ..check.config import ConfigError, load_config

    try:
        return load_config(explicit=config_file, isolated=isolated)
    except ConfigError as exc:
        raise _fail(str(exc)) from None


@click.command(name="transpile", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("-o", "--output", "outdir", type=click.Path(), default=None,
              help="Directory to write into: each input P is written at OUTDIR/<name of P>.")
@click.option("--keep-going", is_flag=True,
              help="Write every module that transpiles even if others are refused or broken.")
@click.option("--show", "show", type=click.Path(), default=None, metavar="FILE",
              help="Print the rewritten FILE instead of writing anything (PATHS, if given, is its tree).")
@click.option("--diff", is_flag=True,
              help="Print unified diffs against the sources instead of writing (with --show: that file only).")
@click.option("--no-convert", "no_convert", is_flag=True,
              help="Apply no conversions: refuse every module with an error finding (the checker's gate).")
@click.option("--output-format", "--format", "output_format", default=None,
              type=click.Choice(["full", "concise", "json", "github", "sarif"]),
              help="Format of the checker's findings for refused modules.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="Checker configuration ([tool.hybridize-check]) to use instead of the nearest pyproject.toml.")
@click.option("--isolated", is_flag=True, help="Ignore checker configuration files.")
@click.option("-q", "--quiet", is_flag=True, help="No summary line.")
@click.option("--follow-links", is_flag=True,
              help="Follow symbolic links that leave an input tree (to regular files only).")
@click.pass_context
def transpile(ctx: click.Context, paths: tuple[str, ...], outdir: Optional[str], keep_going: bool,
              show: Optional[str], diff: bool, no_convert: bool, output_format: Optional[str],
              config_file: Optional[str], isolated: bool, quiet: bool, follow_links: bool) -> None:
    """Rewrite MXNet Gluon modules into static graph-building modules that run on hybridize.runtime."""
    try:
        code = _run(paths, outdir, keep_going, show, diff, output_format, config_file, isolated, quiet,
                    not no_convert, follow_links)
    except click.exceptions.Exit:
        raise
    except click.UsageError:
        raise
    except TranspileError as exc:
        raise _fail(str(exc)) from None
    except KeyboardInterrupt:
        raise _fail("interrupted") from None
    except Exception as exc:  # the CLI edge: never a traceback for users
        if os.environ.get("HYBRIDIZE_DEBUG"):
            raise
        raise _fail(f"internal error: {type(exc).__name__}: {exc}") from None
    ctx.exit(code)


def _run(paths, outdir, keep_going, show, diff, output_format, config_file, isolated, quiet, convert,
         follow_links: bool = False) -> int:
    if show is not None:
        if outdir is not None:
            raise click.UsageError("--show prints instead of writing: do not combine it with -o")
        return _show(show, paths, diff, output_format, config_file, isolated, convert)
    if diff and outdir is not None:
        raise click.UsageError("--diff prints instead of writing: do not combine it with -o")
    if outdir is None and not diff:
        raise click.UsageError("missing -o OUTDIR (or use --diff, or --show FILE to print one module)")
    inputs = plan_inputs(paths, follow_links)
    for inp in inputs:
        for link, target in inp.skipped_links:
            click.echo(printable(f"{PROG}: {inp.label(link)}: a symbolic link leaving the tree (to {target}): "
                                 "not followed (--follow-links follows it)"), err=True)
    if outdir is not None:
        check_outdir(outdir, inputs)
        if os.path.isdir(outdir):
            recover(outdir)       # complete what a killed run left half committed, even if this run writes nothing
    config = _config(config_file, isolated)
    report = transpile_inputs(inputs, config, stop_early=not keep_going, convert=convert)
    report.outdir = outdir
    if report.refused:
        click.echo(_render_findings(report, output_format), nl=False)
    for o in report.errors:
        click.echo(printable(f"{PROG}: error: {o.error}"), err=True)
    failed = bool(report.refused or report.errors)
    written = []
    if diff:
        for outcome in report.to_write(keep_going):
            click.echo(_diff(outcome.file, outcome.label, outcome.code(keep_going)), nl=False)
    elif report.to_write(keep_going) and (keep_going or not failed):
        written = write_report(report, inputs, outdir, keep_going)
    if not quiet:
        click.echo(printable(_summary(report, outdir, bool(written), keep_going, diff)), err=True)
    if report.errors:
        return EXIT_ERROR
    return EXIT_REFUSED if report.refused else EXIT_OK


#: How many converted blocks holding an imperative-only one the summary names (a large package
#: whose shared building blocks were refused holds hundreds).
_HOLDERS_NAMED = 20


def _summary(report: Report, outdir: Optional[str], wrote: bool, keep_going: bool, diff: bool) -> str:
    """One paragraph on stderr: counts, every refused module with its codes, every unsupported API."""
    total = len(report.files)
    plural = "s" if total != 1 else ""
    converted = report.converted
    if diff:
        done = len(report.written)
        head = f"Converted {done} of {total} module{plural} (diffs above; nothing written)"
    else:
        done = len(report.written) if wrote else 0
        head = f"Transpiled {done} of {total} module{plural} into {outdir}"
    parts = [head]
    if converted:
        parts.append(f"{converted} conversion{'s' if converted != 1 else ''} applied")
    if report.refused:
        names = ", ".join(f"{o.label} ({', '.join(sorted({f.code for f in o.result.blocking}))})"  # type: ignore[union-attr]
                          for o in report.refused)
        how = " (written anyway, see their headers: --keep-going)" if keep_going and (wrote or diff) else ""
        parts.append(f"{len(report.refused)} refused{how}: {names}")
    holders = report.imperative_holders() if report.refused and (wrote or diff) else []
    if holders:
        named = ", ".join(f"{label}: {name} ({held})" for label, name, held in holders[:_HOLDERS_NAMED])
        if len(holders) > _HOLDERS_NAMED:
            named += f" and {len(holders) - _HOLDERS_NAMED} more"
        one = len(holders) == 1
        parts.append(f"{len(holders)} converted block{'' if one else 's'} hold{'s' if one else ''} an imperative-only "
                     f"block and run{'s' if one else ''} imperatively (hybridize() hybridizes the rest): {named}")
    apis = report.unsupported_apis
    if apis:
        parts.append(f"unsupported APIs (HY012): {', '.join(apis)}")
    if report.errors:
        parts.append(f"{len(report.errors)} unreadable or with syntax errors")
    if (report.refused or report.errors) and not keep_going and not diff:
        parts.append("nothing written (use --keep-going to write the whole package)")
    return "; ".join(parts) + "."


def _diff(file: str, label: str, code: str) -> str:
    with open(file, encoding="utf-8", errors="replace") as handle:
        before = handle.read()
    name = os.path.normpath(label).lstrip(os.sep)
    return "".join(difflib.unified_diff(before.splitlines(True), code.splitlines(True),
                                        fromfile=f"a/{name}", tofile=f"b/{name}"))


def _show(show: str, paths, diff: bool, output_format, config_file, isolated, convert: bool = True) -> int:
    if not os.path.exists(show):
        raise TranspileError(f"{show}: no such file or directory")
    if not os.path.isfile(show):
        raise TranspileError(f"{show}: --show needs a file")
    inp = _tree_for_show(show, paths)
    config = _config(config_file, isolated)
    file = os.path.abspath(show)
    outcome = transpile_file(inp, file, config, convert)
    if outcome.error is not None:
        raise TranspileError(outcome.error)
    result = outcome.result
    assert result is not None
    if result.refused:
        report = Report(None, [outcome])
        click.echo(_render_findings(report, output_format), nl=False)
        click.echo(printable(f"{show}: refused ({len(result.blocking)} error-level findings); nothing to show."),
                   err=True)
        return EXIT_REFUSED
    if diff:
        click.echo(_diff(file, show, result.code), nl=False)  # type: ignore[arg-type]
    else:
        click.echo(result.code, nl=False)
    return EXIT_OK


def _tree_for_show(show: str, paths) -> Input:
    """The tree ``show`` is transpiled as part of: the given PATH containing it, else its package
    directory (if it has ``__init__.py``), else the file alone."""
    file = os.path.abspath(show)
    for p in paths:
        root = os.path.abspath(p)
        if root == file or (os.path.isdir(root) and file.startswith(root.rstrip(os.sep) + os.sep)):
            for inp in plan_inputs([p]):
                return inp
    directory = os.path.dirname(show) or "."
    if os.path.isfile(os.path.join(directory, "__init__.py")):
        return plan_inputs([directory])[0]
    return plan_inputs([show])[0]
