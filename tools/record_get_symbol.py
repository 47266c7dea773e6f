#!/usr/bin/env python
"""Records what MXNet 1.9.1's ``autograd.get_symbol`` shows of hybridized blocks and
``autograd.Function`` calls (``tests/autograd/get_symbol_cases.py``) into
``tests/autograd/fixtures/get_symbol.json``::

    /tmp/mxnet-venv/bin/python tools/record_get_symbol.py
"""
from __future__ import annotations

import json
import os
import sys

import mxnet as mx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "autograd"))
from get_symbol_cases import cases  # noqa: E402

with open(os.path.join(ROOT, "tests", "autograd", "fixtures", "get_symbol.json"), "w") as f:
    f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in cases(mx).items()) + "\n}\n")
