"""``hybridize.transpile``: the ``hybridize-check`` linter (and, later, the transpiler).

Public API of the checker (stable; the transpiler builds on it):

``checker.check_source(text, path, config=None, with_edits=True) -> list[Finding]``
    Check one module's text. Never raises for bad input (unparsable text is an HY000 finding).
``checker.check_paths(paths, config=None, jobs=0, mode="check"|"fix"|"diff", unsafe=False)``
    Files and directories, in parallel worker processes; returns ``CheckResult`` with
    ``findings`` (sorted by file, line, column), ``files`` (per-file results, fixes, diffs) and
    ``io_errors``.
``checker.fix_source(text, path, config=None, unsafe=False) -> (text, fixed, remaining)``
    Apply fixes until none apply (idempotent).
``config.load_config(start=None, explicit=None, isolated=False) -> Config``
    ``[tool.hybridize-check]`` of the nearest ``pyproject.toml``; ``ConfigError`` if invalid.
``analysis.analyze_text(text) -> ModuleAnalysis``
    The tensor dataflow itself: ``.functions`` (each analysed ``hybrid_forward``),
    ``.value_of(ast_node)`` / ``.value_at(row, col, end_row, end_col)`` -> ``Value`` (is this
    expression a tensor here, and why: ``value.is_tensor``, ``value.origin.explain("y")``),
    ``.events`` (what the rules consume).
``diagnostics.Finding``, ``Fix``, ``Edit``, ``Location``, ``Severity``
    Plain picklable data; ``formats.FORMATS[name](findings, RenderOptions)`` renders them.
``rules.ALL_RULES``
    code -> ``Rule`` (message, rationale, fix advice, VALID/INVALID examples), discovered from
    the ``rules/hy*.py`` modules.

The command line (``check_cli.check``, a click command) is a thin edge over this API.
"""
