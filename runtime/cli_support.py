"""What the runtime's commands (``hybridize run``, ``graph``, ``export-onnx``) share: one-line
errors and argument handling, defined once.

Every problem is one line on stderr, ``<prog>: <file>: <problem>`` (or ``<prog>: <problem>``), exit
status 1 for bad files or data, 2 for bad usage, 130 on Ctrl-C; never a traceback unless
``HYBRIDIZE_DEBUG`` is set. A command raises :class:`Fail` where it knows the file to blame, and
:func:`guard` turns anything else into the same single line.
"""
from __future__ import annotations

import os
import re
from typing import Any, Callable, NoReturn

import click

__all__ = ["Fail", "command_class", "guard", "one_line", "parse_shape"]


class Fail(Exception):
    """A problem to report as one line, naming ``file`` when there is one; ``code`` is the exit status."""

    def __init__(self, file: Any, problem: str, code: int = 1):
        super().__init__(problem)
        self.file = None if file is None else os.fspath(file)
        self.problem = problem
        self.code = code


def one_line(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", str(text)).strip()


def emit(prog: str, file: str | None, problem: str) -> None:
    """The one line: newlines inside the problem become spaces, then every character that is not
    printable (a NUL or a bidi override in a node name or a file name) is escaped."""
    from ..messages import printable
    click.echo(printable((f"{prog}: {file}: " if file else f"{prog}: ") + one_line(problem)), err=True)


def exit_with(code: int) -> NoReturn:
    raise click.exceptions.Exit(code)


def command_class(prog: str) -> type[click.Command]:
    """A ``click.Command`` whose usage errors are one line (``<prog>: <problem> (see <prog> --help)``,
    exit 2), without click's usage dump."""
    class OneLineCommand(click.Command):
        def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
            try:
                return super().parse_args(ctx, args)
            except click.UsageError as e:
                emit(prog, None, e.format_message() + f" (see {prog} --help)")
                ctx.exit(2)
                raise  # pragma: no cover
    return OneLineCommand


def guard(prog: str, subject: str, body: Callable[[], Any]) -> Any:
    """Runs a command's ``body``: :class:`Fail` -> its line and code; the runtime's own errors ->
    their message naming ``subject`` (the model file); Ctrl-C -> 130; anything else -> an
    "internal error" line (``HYBRIDIZE_DEBUG=1`` re-raises it for the traceback)."""
    try:
        return body()
    except Fail as e:
        emit(prog, e.file, e.problem)
        exit_with(e.code)
    except KeyboardInterrupt:
        emit(prog, None, "interrupted")
        exit_with(130)
    except Exception as e:  # the edge: never a traceback for the user
        if os.environ.get("HYBRIDIZE_DEBUG"):
            raise
        from .base import HybridizeError
        if isinstance(e, HybridizeError):
            emit(prog, subject, str(e))
        else:
            emit(prog, subject, f"internal error ({type(e).__name__}: {one_line(str(e))}); "
                                "rerun with HYBRIDIZE_DEBUG=1 for the traceback")
        exit_with(1)


_SHAPE = re.compile(r"\(?\s*(\d+(?:\s*,\s*\d+)*)\s*,?\s*\)?|(\d+(?:\s*x\s*\d+)*)")


def parse_shape(text: str) -> tuple[int, ...]:
    """``"1,3,224,224"``, ``"(1, 3, 224, 224)"``, ``"(3,)"`` or ``"1x3x224x224"`` -> a tuple of
    positive ints; ``ValueError`` naming the text otherwise."""
    m = _SHAPE.fullmatch(text.strip())
    if not m:
        raise ValueError(f"bad shape {text!r}: expected positive integers such as 1,3,224,224")
    dims = tuple(int(d) for d in re.split(r"\s*[,x]\s*", m.group(1) or m.group(2)))
    if any(d <= 0 for d in dims):
        raise ValueError(f"bad shape {text!r}: every dimension must be positive")
    return dims
