#!/bin/sh
# Makes a venv of MXNet 1.9.1's own NumPy environment for tools/mxnet_unittests/run.py --python:
# MXNet 1.9.1 requires numpy<2, and its test code calls NumPy APIs NumPy 2 removed. The venv holds
# numpy 1.26, what MXNet's test files import (SciPy, pytest, packaging) and this package installed
# editable (our pyproject declares numpy>=1.22). No MXNet: `mxnet` is the runner's alias.
#     tools/mxnet_unittests/make_numpy1_venv.sh [VENV_DIR]      (default /tmp/hy-np1)
#     python tools/mxnet_unittests/run.py /tmp/mxtests/tests/python/unittest --python VENV_DIR/bin/python
set -eu
VENV=${1:-/tmp/hy-np1}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q "numpy==1.26.4" "scipy>=1.11,<1.14" "pytest>=7" packaging
"$VENV/bin/pip" install -q -e "$REPO"
"$VENV/bin/python" -c "import numpy, hybridize.runtime; print('numpy', numpy.__version__, 'hybridize', hybridize.__file__)"
