"""``junit``: JUnit XML, one test suite per file and one failing test case per finding (ruff's shape);
a clean run is one passing suite, so CI dashboards show the check ran."""
from __future__ import annotations

from itertools import groupby
from xml.sax.saxutils import quoteattr, escape

from ...diagnostics import Finding
from . import RenderOptions

NAME = "junit"


def render(findings: list[Finding], options: RenderOptions) -> str:
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n',
           f'<testsuites name="hybridize-check" tests="{max(len(findings), 1)}" failures="{len(findings)}" errors="0">\n']
    if not findings:
        out.append('  <testsuite name="hybridize-check" tests="1" disabled="0" errors="0" failures="0" package="org.hybridize">\n'
                   '    <testcase name="No errors found" classname="hybridize-check" />\n  </testsuite>\n')
    for path, group in groupby(findings, key=lambda f: f.path):
        rows = list(group)
        out.append(f'  <testsuite name={quoteattr(path)} tests="{len(rows)}" disabled="0" errors="0" '
                   f'failures="{len(rows)}" package="org.hybridize">\n')
        for f in rows:
            name = quoteattr(f"org.hybridize.{f.code}")
            classname = quoteattr(path.replace("/", ".").removesuffix(".py"))
            out.append(f'    <testcase name={name} classname={classname} line="{f.start.row}" column="{f.start.column}">\n'
                       f'      <failure message={quoteattr(f.message)}>{escape(f"line {f.start.row}, col {f.start.column}, {f.message}")}</failure>\n'
                       '    </testcase>\n')
        out.append("  </testsuite>\n")
    out.append("</testsuites>\n")
    return "".join(out)
