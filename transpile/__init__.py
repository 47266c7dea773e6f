"""``hybridize.transpile``: the ``hybridize-check`` linter and the ``hybridize transpile`` converter.

One pipeline, one folder per stage: ``source`` (read, decode, parse; HY000) -> ``analysis`` (the one
semantic model: scopes, bindings, which values are tensors and why) -> ``rules`` (one module per HY
code: message, rationale, fix, examples) -> ``check`` (findings, config, output formats),
``convert`` (codemods that rewrite what needs concrete data into graph code) and ``emit`` (imports
mapped to ``hybridize.runtime``, static graph modules, atomic trees).

Public API of the checker (stable; the transpiler builds on it):

``check.checker.check_source(text, path, config=None, with_edits=True) -> list[Finding]``
    Check one module's text. Never raises for bad input (unparsable text is an HY000 finding).
``check.checker.check_paths(paths, config=None, jobs=0, mode="check"|"fix"|"diff", unsafe=False)``
    Files and directories, in parallel worker processes; returns ``CheckResult`` with
    ``findings`` (sorted by file, line, column), ``files`` (per-file results, fixes, diffs) and
    ``io_errors``.
``check.checker.fix_source(text, path, config=None, unsafe=False) -> (text, fixed, remaining)``
    Apply fixes until none apply (idempotent).
``check.config.load_config(start=None, explicit=None, isolated=False) -> Config``
    ``[tool.hybridize-check]`` of the nearest ``pyproject.toml``; ``ConfigError`` if invalid.
``check.config.Resolver(load_config())``
    Each file's own nearest table (``.for_path(path) -> Config``); ``check_paths`` takes it as
    ``config`` (what ``hybridize-check`` does).
``analysis.analyze_text(text) -> ModuleAnalysis``
    The tensor dataflow itself: ``.functions`` (each analysed ``hybrid_forward``),
    ``.value_of(ast_node)`` / ``.value_at(row, col, end_row, end_col)`` -> ``Value`` (is this
    expression a tensor here, and why: ``value.is_tensor``, ``value.origin.explain("y")``),
    ``.events`` (what the rules consume).
``diagnostics.Finding``, ``Fix``, ``Edit``, ``Location``, ``Severity``
    Plain picklable data; ``check.formats.FORMATS[name](findings, RenderOptions)`` renders them.
``rules.ALL_RULES``
    code -> ``Rule`` (message, rationale, fix advice, VALID/INVALID examples), discovered from
    the ``rules/hy*.py`` modules.

The command line (``check.cli.check``, a click command) is a thin edge over this API.
"""
