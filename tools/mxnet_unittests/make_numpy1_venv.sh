#!/bin/sh
# Makes a venv of MXNet 1.9.1's own NumPy environment for tools/mxnet_unittests/run.py --python.
# MXNet 1.9.1 requires numpy<2 (its CI pinned numpy<1.20), and its test code calls NumPy APIs that
# later NumPy removed (np.float/np.bool/np.int in 1.24, np.round_/np.sometrue and percentile's
# interpolation= in 2.0). numpy 1.23.5 is the newest NumPy that still has them and the oldest with
# wheels for Python 3.11 (MXNet's own venv here has it too); NUMPY=1.26.4 gives the last 1.x.
# The venv holds that NumPy, what MXNet's test files import (SciPy, pytest, packaging) and this
# package installed editable (pyproject declares numpy>=1.22). No MXNet: `mxnet` is the runner's alias.
#     tools/mxnet_unittests/make_numpy1_venv.sh [VENV_DIR]      (default /tmp/hy-np1)
#     python tools/mxnet_unittests/run.py /tmp/mxtests/tests/python/unittest --python VENV_DIR/bin/python
set -eu
VENV=${1:-/tmp/hy-np1}
NUMPY=${NUMPY:-1.23.5}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q "numpy==$NUMPY" "scipy>=1.10,<1.14" "pytest>=7" packaging
"$VENV/bin/pip" install -q -e "$REPO"
"$VENV/bin/python" -c "import numpy, hybridize.runtime; print('numpy', numpy.__version__, 'hybridize', hybridize.__file__)"
