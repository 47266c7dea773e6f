"""``hybridize export-onnx``: an exported MXNet model (symbol JSON + parameters) -> ONNX file.

    hybridize export-onnx net-symbol.json [--params net-0000.params] -o net.onnx
                          [--opset N] [--dynamic-batch] [--input NAME=SHAPE ...]

``--params`` defaults to the ``prefix-0000.params`` beside ``prefix-symbol.json`` (as ``hybridize
run``). ``--input data=1,3,224,224`` gives an input's shape (``NAME=`` may be left out for a sole
input; every input needs one: a variable without a value and without ``--input`` is reported as a
parameter missing from the file). ``--dynamic-batch``
leaves axis 0 of every input symbolic, except inputs whose first axis the model cannot vary (a
loop limit of shape (1,)). Problems are one line on stderr: exit 1 for a model that
cannot be exported or read (unsupported operator, missing parameter, unwritable output), 2 for a
malformed command line (bad shape string, unknown input); the output file is written atomically
or not at all.
"""
from __future__ import annotations

import click

from ..cli_support import Fail as _Fail
from ..cli_support import command_class, guard, parse_shape
from ...messages import printable

PROG = "hybridize export-onnx"
__all__ = ["export_onnx", "parse_shape"]


def _shapes(specs: tuple[str, ...], names: list[str]) -> dict[str, tuple]:
    out: dict[str, tuple] = {}
    for spec in specs:
        name, sep, text = spec.rpartition("=")
        if not sep:
            if len(names) > 1 and "data" in names and not specs[1:]:
                name = "data"   # Gluon's data input; the others are reported as missing parameters
            elif len(names) != 1:
                raise _Fail(None, f"--input {spec!r}: name the input (NAME=SHAPE); the model's inputs: "
                                  f"{', '.join(names) or 'none'}", 2)
            else:
                name = names[0]
        if name not in names:
            raise _Fail(None, f"--input {spec!r}: the model has no input {name!r} "
                              f"(its inputs: {', '.join(names) or 'none'})", 2)
        if name in out:
            raise _Fail(None, f"--input {name}=...: given more than once", 2)
        try:
            out[name] = parse_shape(text)
        except ValueError as e:
            raise _Fail(None, f"--input {spec!r}: {e}", 2) from None
    return out


def _export(graph: str, params_file: str | None, output: str, opset: int | None, dynamic_batch: bool,
            input_specs: tuple[str, ...]) -> str:
    from ..base import HybridizeError, LoadError
    from ..graph.model import Model
    from . import ExportError, save_model
    from .export import graph_inputs, graph_to_onnx

    try:
        model = Model.load(graph, params_file)
    except LoadError as e:
        raise _Fail(e.path or graph, e.problem) from None
    try:
        inputs = graph_inputs(model.graph, model.params)
    except ExportError as e:
        raise _Fail(graph, e.problem) from None
    names = [v.name for v in inputs]
    shapes = _shapes(input_specs, names)
    for v in inputs:
        if v.name not in shapes:
            if shapes or v.name != "data" and "data" in names:
                # the data inputs have shapes: this variable is a parameter the file lacks
                users = [n for n in model.graph.nodes if any(e.node is v for e in n.inputs)]
                who = f"{users[0].op.name} {users[0].name!r}" if users else "nothing"
                raise _Fail(model.params_path or graph, f"missing parameter {v.name!r} (needed by {who})")
            raise _Fail(None, f"no shape for input {v.name!r}: give --input {v.name}=SHAPE", 2)
    dyn = {k: (0,) for k in names} if dynamic_batch else {}
    try:
        onnx_model = graph_to_onnx(model.graph, model.params, shapes, None, dyn, opset, drop_fixed=True)
        save_model(onnx_model, output)
    except ExportError as e:
        if e.path is not None:
            raise _Fail(e.path, e.problem.split(": ", 1)[1] if e.problem.startswith(e.path + ": ") else e.problem) from None
        raise _Fail(graph, e.problem) from None
    except HybridizeError as e:
        raise _Fail(graph, str(e)) from None
    opset_used = onnx_model.opset_import[0].version
    dims = {i.name: ["N" if d.HasField("dim_param") or not d.HasField("dim_value") else str(d.dim_value)
                     for d in i.type.tensor_type.shape.dim] for i in onnx_model.graph.input}
    ins = ", ".join(f"{k} ({', '.join(dims[k])}{',' if len(dims[k]) == 1 else ''})" for k in names)
    return f"wrote {output} (ONNX opset {opset_used}; inputs {ins})"


@click.command("export-onnx", cls=command_class(PROG), context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("graph", metavar="GRAPH-symbol.json")
@click.option("--params", "params_file", metavar="FILE",
              help="Parameter file; default: prefix-0000.params next to prefix-symbol.json.")
@click.option("--output", "-o", required=True, metavar="MODEL.onnx", help="The ONNX file to write.")
@click.option("--opset", type=click.IntRange(1, None), default=None, metavar="N",
              help="ONNX opset to write (default 17; 13 and later).")
@click.option("--dynamic-batch", is_flag=True,
              help="Leave axis 0 of every input symbolic (inputs whose axis 0 cannot vary stay fixed).")
@click.option("--input", "-i", "inputs", multiple=True, metavar="[NAME=]SHAPE",
              help="An input's shape, e.g. data=1,3,224,224 (NAME may be omitted for a sole input).")
def export_onnx(graph: str, params_file: str | None, output: str, opset: int | None, dynamic_batch: bool,
                inputs: tuple[str, ...]) -> None:
    """Export an MXNet model (GRAPH-symbol.json + parameters) to an ONNX file."""
    click.echo(printable(guard(PROG, graph, lambda: _export(graph, params_file, output, opset, dynamic_batch, inputs))))
