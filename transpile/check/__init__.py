"""The checker: runs the rules over the analysis and reports findings (``hybridize-check``).

``checker`` (check/fix/diff over files, in worker processes), ``config`` (``[tool.hybridize-check]``),
``formats`` (text, JSON, SARIF, GitHub renderers), ``cli`` (the click command).
"""
