#!/usr/bin/env python
"""Records MXNet 1.9.1's executor shapes when bound at shapes other than a variable's declared one
(``tests/runtime/bound_shapes_cases.py``) into ``tests/runtime/fixtures/bound_shapes.json``::

    /tmp/mxnet-venv/bin/python tools/record_bound_shapes.py
"""
from __future__ import annotations

import json
import os
import sys

import mxnet as mx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "runtime"))
from bound_shapes_cases import cases  # noqa: E402

with open(os.path.join(ROOT, "tests", "runtime", "fixtures", "bound_shapes.json"), "w") as f:
    json.dump(cases(mx), f)
    f.write("\n")
