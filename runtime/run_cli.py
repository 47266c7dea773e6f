"""``hybridize run``: runs an exported model (symbol JSON + parameters) on numpy inputs.

    hybridize run net-symbol.json [--params net-0000.params] --input data=x.npy [--output y.npz]
                  [--backend numpy|onnxruntime]

A sole data input may be given as ``--input x.npy``; ``.npz`` files holding one array are
accepted too. An input whose dtype is not the model's (float32 unless the variable says otherwise)
is cast to it, as MXNet does, and a note on stderr says so. Prints one line per output (``out0 <name>: shape (1, 1000), dtype float32``) and,
with ``--output``, writes them to an ``.npz`` as ``out0``, ``out1``, ... (atomically), or the only
output to a ``.npy`` (refused up front when there is more than one array to write).
``--params`` defaults to the ``prefix-0000.params`` next to ``prefix-symbol.json``.

Batch inference: an input given several times (``--input x1.npy --input x2.npy`` for a sole
input, ``--input data=a.npy --input data=b.npy``), or an ``.npz`` holding several arrays (its
*items*, in file order), runs the model once per item; items may differ in shape (one compiled
program per shape). Every input then needs the same number of items, or one, which all runs
share. Lines read ``item3 out0 <name>: ...`` and the ``.npz`` holds ``out0_3`` for output 0 of
item 3. One item behaves exactly as a single run.

Every problem is one line on stderr, ``hybridize run: <file>: <problem>``: exit status 1 for bad
files or data (unreadable model, missing parameter, input of the wrong shape, ...), 2 for a
malformed command line. Library errors are turned into lines here, at the edge, and only here.
``HYBRIDIZE_DEBUG=1`` lets unexpected exceptions through with their traceback.

Hostile files: every size a parameter or input file declares is checked against the bytes present
before anything is allocated, and what a file may make us allocate is capped (2 GiB by default;
``--max-load-bytes 8G`` or ``HYBRIDIZE_MAX_LOAD_BYTES=8G`` for a genuinely huge model).
"""
from __future__ import annotations

import os
import re
from typing import Any

import click
import numpy as np

from .cli_support import Fail, command_class, guard, one_line
from ..messages import printable

__all__ = ["run"]

PROG = "hybridize run"


_Fail = Fail
_one_line = one_line


def _load_items(file: str, max_bytes: Any = None) -> list[np.ndarray]:
    """The items of an input file: a ``.npy``'s array, or every array of a ``.npz`` in file
    order; every declared size checked first (:mod:`.graph.npyfile`)."""
    from .base import LoadError
    from .graph.npyfile import load_array_file, load_npz

    try:
        from ..readers import open_regular

        with open_regular(file) as fp:
            zipped = fp.read(2) == b"PK"
    except OSError:
        zipped = False  # load_array_file names the problem
    try:
        if not zipped:
            return [load_array_file(file, max_bytes)]
        items = list(load_npz(file, max_bytes).values())
    except LoadError as e:
        raise _Fail(e.path or file, e.problem) from None
    if not items:
        raise _Fail(file, "holds no arrays; an input file must hold at least one")
    return items


def _parse_specs(specs: tuple[str, ...]) -> list[tuple[str | None, str]]:
    out: list[tuple[str | None, str]] = []
    for spec in specs:
        if "=" in spec and not os.path.exists(spec):
            name, file = spec.split("=", 1)
            if not name or not file:
                raise _Fail(None, f"--input {spec!r}: expected NAME=FILE or FILE", 2)
            out.append((name, file))
        else:
            out.append((None, spec))
    return out


def _assign(model: Any, specs: list[tuple[str | None, str]]) -> list[tuple[str, str]]:
    """(input name, file) for every --input; unnamed ones take the model's remaining inputs (all
    of them the sole remaining input's items, when only one remains). A name given several
    times gets several files: a batch."""
    names = model.input_names
    named = [(n, f) for n, f in specs if n is not None]
    unnamed = [f for n, f in specs if n is None]
    for n, f in named:
        if n not in {v.name for v in model.graph.variables()}:
            raise _Fail(None, f"--input {n}={f}: the model has no input {n!r} "
                              f"(its inputs: {', '.join(names) or 'none'})", 2)
        if n not in names:
            raise _Fail(None, f"--input {n}={f}: {n!r} is a parameter of the model, not an input "
                              f"(its inputs: {', '.join(names) or 'none'})", 2)
    if not unnamed:
        return named
    free = [n for n in names if n not in {m for m, _ in named}]
    if len(unnamed) == 1 and len(free) > 1 and "data" in free:
        free = ["data"]   # Gluon's data input; the others will be reported as missing parameters
    if len(free) == 1 or (not free and len(names) == 1):
        target = (free or names)[0]   # one input, several files: a batch, in command-line order
        return [(n if n is not None else target, f) for n, f in specs]
    if len(unnamed) != len(free):
        raise _Fail(None, f"the model has {len(free)} unassigned input(s) ({', '.join(free) or 'none'}); "
                          f"name each one with --input NAME=FILE", 2)
    return named + list(zip(free, unnamed))


def _fmt_shape(shape: tuple) -> str:
    return "(" + str(shape[0]) + ",)" if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"


def _run(graph: str, params_file: str | None, input_specs: tuple[str, ...], output: str | None,
         executor: str | None, max_load_bytes: str | None = None) -> None:
    from .base import LoadError
    from .graph import params as _params
    from .graph.model import Model

    specs = _parse_specs(input_specs)
    try:
        model = Model.load(graph, params_file, executor=executor, max_bytes=max_load_bytes)
    except LoadError as e:
        raise _Fail(e.path or graph, e.problem) from None
    if not specs:
        raise _Fail(None, "no --input given (the model's inputs: "
                          f"{', '.join(model.input_names) or 'none'})", 2)
    pairs = _assign(model, specs)
    items: dict[str, list[tuple[np.ndarray, str]]] = {}   # input -> [(array, the file it came from)]
    for name, file in pairs:
        items.setdefault(name, []).extend((a, file) for a in _load_items(file, max_load_bytes))
    _note_casts(model, items)
    count = max((len(v) for v in items.values()), default=1)
    uneven = {n: len(v) for n, v in items.items() if len(v) not in (1, count)}
    if uneven:
        listing = ", ".join(f"{n}: {len(v)}" for n, v in items.items())
        raise _Fail(None, f"the inputs have different numbers of items ({listing}); give each input "
                          f"{count} items or one, shared by every run", 2)
    if output and output.lower().endswith(".npy") and count * len(model.output_names) != 1:
        raise _Fail(output, f"a .npy holds one array, and this run makes {count * len(model.output_names)} "
                            "(outputs x items): write an .npz instead", 2)
    results: dict[str, np.ndarray] = {}
    lines: list[str] = []   # printed once every item has run: a failing item leaves no partial report
    for k in range(count):
        chosen = {n: v[k if len(v) > 1 else 0] for n, v in items.items()}
        outs = _run_one(model, graph, {n: a for n, (a, _) in chosen.items()},
                        {n: f for n, (_, f) in chosen.items()}, f"item {k}: " if count > 1 else "")
        for i, (name, arr) in enumerate(zip(model.output_names, outs)):
            arr = np.asarray(arr)
            label = f"item{k} out{i}" if count > 1 else f"out{i}"
            lines.append(f"{label} {name}: shape {_fmt_shape(arr.shape)}, dtype {arr.dtype.name}")
            results[f"out{i}_{k}" if count > 1 else f"out{i}"] = arr
    for line in lines:
        click.echo(printable(line))
    if output:
        try:
            if output.lower().endswith(".npy"):
                from ..atomic import open_for_write
                with open_for_write(output) as f:
                    np.save(f, next(iter(results.values())), allow_pickle=False)
            else:
                _params.save_npz(output, results)
        except OSError as e:
            raise _Fail(output, f"cannot write: {e.strerror or e}") from None


def _note_casts(model: Any, items: dict[str, list[tuple[np.ndarray, str]]]) -> None:
    """Says so (one note per file and dtype, on stderr) when an input's dtype is not the model's:
    the model casts it (MXNet feeds data in the variable's dtype, float32 unless ``__dtype__``)."""
    seen: set = set()
    for name, pairs in items.items():
        want = model.input_dtype(name)
        for arr, file in pairs:
            if arr.dtype != want and (file, arr.dtype) not in seen:
                seen.add((file, arr.dtype))
                click.echo(printable(f"{PROG}: note: {file}: input {name!r} is {arr.dtype.name}; the model takes "
                                     f"{want.name}, so it is cast to {want.name}"), err=True)


def _run_one(model: Any, graph: str, arrays: dict[str, np.ndarray], files: dict[str, str],
             item: str) -> list:
    """One forward; a failure names the file to blame (``item`` prefixes the problem in a batch)."""
    from .base import HybridizeError, LoadError, ShapeError

    try:
        return model.run(arrays)
    except LoadError as e:
        raise _Fail(e.path or graph, e.problem) from None
    except ShapeError as e:
        m = re.match(r"input '([^']*)'", str(e))
        blame = files.get(m.group(1)) if m else (next(iter(files.values())) if len(files) == 1 else graph)
        raise _Fail(blame or graph, item + str(e)) from None
    except HybridizeError as e:
        raise _Fail(graph, item + str(e)) from None


@click.command("run", cls=command_class(PROG), context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("graph", metavar="GRAPH-symbol.json")
@click.option("--params", "params_file", metavar="FILE",
              help="Parameter file (.params from export or save_parameters, or .npz); "
                   "default: prefix-0000.params next to prefix-symbol.json.")
@click.option("--input", "-i", "inputs", multiple=True, metavar="[NAME=]FILE.npy",
              help="An input array (.npy, or .npz); NAME may be omitted for a sole input. Repeat an "
                   "input, or give an .npz of several arrays, to run a batch: one run per item.")
@click.option("--output", "-o", metavar="OUT.npz|OUT.npy",
              help="Write the outputs as out0, out1, ... to this .npz (or the one output to a .npy).")
@click.option("--executor", type=click.Choice(["compiled", "interpret"]), default=None,
              help="numpy backend: compiled (default) or the reference interpreter.")
@click.option("--backend", type=click.Choice(["numpy", "onnxruntime"]), default="numpy",
              help="numpy (default: this runtime) or onnxruntime (the model exported to ONNX in memory; "
                   "needs the onnx and onnxruntime packages).")
@click.option("--max-load-bytes", metavar="SIZE", default=None,
              help="Most bytes one parameter or input file may make the loader allocate (default 2G, "
                   "or $HYBRIDIZE_MAX_LOAD_BYTES); raise it for a genuinely huge model, e.g. 8G.")
def run(graph: str, params_file: str | None, inputs: tuple[str, ...], output: str | None,
        executor: str | None, backend: str, max_load_bytes: str | None) -> None:
    """Run an exported MXNet model (GRAPH-symbol.json + parameters) on numpy inputs."""
    def body() -> None:
        nonlocal executor
        if backend == "onnxruntime":
            if executor is not None:
                raise _Fail(None, f"--executor {executor} applies to the numpy backend, not to --backend onnxruntime", 2)
            executor = "onnxruntime"
        _run(graph, params_file, inputs, output, executor, max_load_bytes)
    guard(PROG, graph, body)


if __name__ == "__main__":  # pragma: no cover
    run(prog_name=PROG)
