"""HY000: the file cannot be read or parsed."""
from ..diagnostics import Severity
from .base import Rule

RULE = Rule(
    code="HY000",
    name="parse-error",
    severity=Severity.ERROR,
    summary="file cannot be read or parsed",
    rationale=(
        "A file that does not decode or parse cannot be checked, and it will not import either. "
        "It is reported as a finding at the location of the problem rather than aborting the "
        "run, so the other files are still checked."
    ),
    fix_advice="Fix the syntax error or the encoding (save the file as UTF-8).",
    events=(),
    check=None,
    valid=(
        "class Net:\n    def hybrid_forward(self, F, x):\n        return x\n",
    ),
    invalid=(
        "class Net:\n    def hybrid_forward(self, F, x)  # expect: HY000\n        return x\n",
    ),
)
