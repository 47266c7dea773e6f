"""HY100: a ``# noqa: HYxxx`` directive that suppresses nothing."""
from ..diagnostics import Severity
from .base import Rule, example

RULE = Rule(
    code="HY100",
    name="unused-noqa",
    severity=Severity.WARNING,
    summary="unused `# noqa: HYxxx` directive",
    rationale=(
        "A suppression that no longer matches a finding hides nothing today but will silently hide "
        "a real problem added to that line later. Only directives naming HY codes (and the "
        "file-level `# hybridize-check: noqa`) are checked; bare `# noqa` may belong to other tools."
    ),
    fix_advice="Delete the directive, or the codes in it that no longer apply (`--fix` does this).",
    events=(),
    check=None,
    fixable=True,
    valid=(
        example("y = F.relu(x)\ny += 1  # noqa: HY002\nreturn y"),
    ),
    invalid=(
        example("y = F.relu(x)  # noqa: HY002  # expect: HY100\nreturn y"),
    ),
    fix_examples=(
        (example("y = F.relu(x)  # noqa: HY002\nreturn y"), example("y = F.relu(x)\nreturn y")),
        (example("y = F.relu(x)\nprint(y)  # noqa: HY008, HY010\nreturn y"),
         example("y = F.relu(x)\nprint(y)  # noqa: HY008\nreturn y")),
        (example("y = F.relu(x)  # keep  # noqa: HY010\nreturn y"), example("y = F.relu(x)  # keep\nreturn y")),
    ),
)
