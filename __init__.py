"""hybridize: check, transpile and run MXNet-Gluon-style hybrid code without MXNet.

Installed as one package whose parts mirror the repository's top-level folders:
``hybridize.runtime`` (the numpy executor), ``hybridize.transpile`` (checker and rewriter)
and ``hybridize.cli`` (the ``hybridize`` command).
"""

__version__ = "0.1.0"
