"""The transpiler's back end: maps ``mxnet`` imports to ``hybridize.runtime`` (``imports``), rewrites
each module into static graph-building code (``rewrite``) and writes trees atomically (``output``);
``cli`` is ``hybridize transpile``.
"""
