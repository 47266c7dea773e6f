#!/usr/bin/env python
"""Records where MXNet 1.9.1's ``simple_bind``/``bind`` with ``group2ctx`` put an executor's arrays
(``tests/runtime/group2ctx_cases.py``) into ``tests/runtime/fixtures/group2ctx.json``::

    /tmp/mxnet-venv/bin/python tools/record_group2ctx.py
"""
from __future__ import annotations

import json
import os
import sys

import mxnet as mx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "runtime"))
from group2ctx_cases import cases  # noqa: E402

with open(os.path.join(ROOT, "tests", "runtime", "fixtures", "group2ctx.json"), "w") as f:
    f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in cases(mx).items()) + "\n}\n")
