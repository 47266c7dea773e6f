"""``sarif``: SARIF 2.1.0 for GitHub code scanning (one run, every rule described, URIs
relative to the checked root under ``%SRCROOT%``)."""
from __future__ import annotations

import json
import os

from ... import diagnostics
from ...diagnostics import Finding
from ... import rules as rule_registry
from . import RenderOptions

NAME = "sarif"
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(path: str, root: str) -> str:
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    if rel.startswith(".."):
        return "file://" + os.path.abspath(path).replace(os.sep, "/")
    return rel.replace(os.sep, "/")


def _fix(f: Finding, options: RenderOptions) -> dict:
    """SARIF's ``fix``: the edits as replacements of regions of the one file."""
    replacements = []
    for e in f.fix.edits:
        region = {"startLine": e.start.row, "startColumn": e.start.column,
                  "endLine": e.end.row, "endColumn": e.end.column}
        replacements.append({"deletedRegion": region, "insertedContent": {"text": e.content}})
    return {
        "description": {"text": f.fix.message + ("" if f.fixable else " (unsafe: applied only with --unsafe-fixes)")},
        "artifactChanges": [{"artifactLocation": {"uri": _uri(f.path, options.root), "uriBaseId": "%SRCROOT%"},
                             "replacements": replacements}],
    }


def render(findings: list[Finding], options: RenderOptions) -> str:
    from .... import __version__

    rules = []
    order = {}
    for i, (code, rule) in enumerate(rule_registry.ALL_RULES.items()):
        order[code] = i
        rules.append({
            "id": code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary.replace("`", "")},
            "fullDescription": {"text": rule.rationale},
            "helpUri": rule.url,
            "help": {"text": rule.fix_advice, "markdown": f"**{rule.summary}**\n\n{rule.rationale}\n\n{rule.fix_advice}"},
            "defaultConfiguration": {"level": "error" if rule.severity is diagnostics.Severity.ERROR else "warning"},
            "properties": {"fixable": rule.fixable},
        })
    results = []
    for f in findings:
        region = {"startLine": f.start.row, "startColumn": f.start.column,
                  "endLine": max(f.end.row, f.start.row),
                  "endColumn": f.end.column if (f.end.row, f.end.column) > (f.start.row, f.start.column) else f.start.column + 1}
        results.append({
            "ruleId": f.code,
            "ruleIndex": order.get(f.code, 0),
            "level": "error" if f.severity is diagnostics.Severity.ERROR else "warning",
            "message": {"text": f.message if f.cell is None else f"cell {f.cell}: {f.message}"},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f.path, options.root), "uriBaseId": "%SRCROOT%"},
                "region": region,
            }}],
        })
        if f.fix is not None and f.fix.edits:
            results[-1]["fixes"] = [_fix(f, options)]
    doc = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "hybridize-check", "version": __version__, "rules": rules}},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }
    return json.dumps(doc, indent=2) + "\n"
