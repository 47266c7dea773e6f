"""Where the harness finds things (environment variables, defaults as used for docs/runtime-realworld.md)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PKGS = os.environ.get("RW_PKGS", "/tmp/dl/x")              # unpacked wheels/sdists: gluoncv/, gluoncv2/, gluonnlp/, gluonts/
TRANSPILED = os.environ.get("RW_TRANSPILED", "/tmp/rw-run")  # hybridize transpile ... -o this
OUT_DIR = os.environ.get("RW_OUT", "/tmp/rwh/out")           # parameters, outputs, results-*.jsonl
MXNET_PYTHON = os.environ.get("RW_MXNET_PYTHON", "/tmp/mxnet-venv/bin/python")
