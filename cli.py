"""The ``hybridize`` command: a click group whose subcommands live next to what they drive.

``check`` (and the ``hybridize-check`` entry point) comes from ``transpile.check.cli``,
``transpile`` from ``transpile.emit.cli``, ``run`` from ``runtime.run_cli``, ``graph`` from ``runtime.graph_cli``,
``export-onnx`` from ``runtime.onnx.cli``. This module only
wires them together; each subcommand turns library errors into one-line messages itself.
"""
from __future__ import annotations

import importlib

import click

from . import __version__

# name -> (module relative to this package, attribute holding the click command)
_SUBCOMMANDS = {
    "check": (".transpile.check.cli", "check"),
    "rule": (".transpile.check.cli", "rule"),
    "transpile": (".transpile.emit.cli", "transpile"),
    "run": (".runtime.run_cli", "run"),
    "graph": (".runtime.graph_cli", "graph"),
    "export-onnx": (".runtime.onnx.cli", "export_onnx"),
}


class _LazyGroup(click.Group):
    """Imports a subcommand's module only when that subcommand is used (fast startup)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_SUBCOMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in _SUBCOMMANDS:
            return None
        module, attr = _SUBCOMMANDS[name]
        return getattr(importlib.import_module(module, __package__), attr)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hybridize")
def main() -> None:
    """Check, transpile and run MXNet-Gluon hybrid code as static graphs on numpy."""
    from .atomic import discard_on_sigterm
    discard_on_sigterm()


def check_main() -> None:
    """Entry point of the standalone ``hybridize-check`` command (``hybridize-check rule CODE``
    explains a rule, as ``ruff rule``; a path named ``rule`` is still checked as ``./rule``)."""
    import sys

    from .atomic import discard_on_sigterm
    from .transpile.check.cli import check, rule

    discard_on_sigterm()

    if sys.argv[1:2] == ["rule"]:
        rule(args=sys.argv[2:], prog_name="hybridize-check rule")
    check(prog_name="hybridize-check")


if __name__ == "__main__":  # pragma: no cover
    main()
