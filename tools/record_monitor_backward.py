#!/usr/bin/env python
"""Records the names MXNet 1.9.1's executor reports to a monitor callback over a training forward
and backward (``tests/runtime/monitor_backward_cases.py``) into
``tests/runtime/fixtures/monitor_backward.json``::

    /tmp/mxnet-venv/bin/python tools/record_monitor_backward.py
"""
from __future__ import annotations

import json
import os
import sys

import mxnet as mx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "runtime"))
from monitor_backward_cases import cases  # noqa: E402

with open(os.path.join(ROOT, "tests", "runtime", "fixtures", "monitor_backward.json"), "w") as f:
    f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in cases(mx).items()) + "\n}\n")
