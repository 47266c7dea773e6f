#!/bin/sh
# Makes a venv of MXNet 1.9.1's own NumPy environment for tools/mxnet_unittests/run.py --python.
# MXNet 1.9.1 requires numpy<2 and its CI ran the unit tests with 'numpy>=1.16.0,<1.20.0'
# (ci/docker/install/requirements at tag 1.9.1, on Python 3.7, scipy==1.2.1); its test code calls
# NumPy APIs and behaviour later NumPy removed (list-as-tuple indexing in 1.23, np.float/np.int and
# out-of-bound Python ints into uint8 in 1.24, np.NaN/np.round_/percentile's interpolation= in 2.0).
#   default:            numpy 1.23.5 on this python3 (the newest NumPy with np.float/np.int; the oldest
#                       with wheels for Python 3.11; MXNet's own venv here has it too).
#   MXNet's CI NumPy:   NUMPY=1.19.5 PYTHON=/root/.pyenv/versions/3.9.18/bin/python (numpy 1.19.5 is the
#                       newest numpy<1.20, with wheels up to Python 3.9; SciPy 1.5.4 is the SciPy of
#                       its time with cp39 wheels). The package declares numpy>=1.22, so it is installed
#                       --no-deps and its other dependencies are installed alone: this venv is for
#                       MXNet's tests, not a supported environment of the package.
#   NUMPY=1.26.4:       the last 1.x.
# The venv holds that NumPy, what MXNet's test files import (SciPy, pytest, packaging) and this
# package installed editable. No MXNet: `mxnet` is the runner's alias.
#     [NUMPY=...] [PYTHON=...] tools/mxnet_unittests/make_numpy1_venv.sh [VENV_DIR]   (default /tmp/hy-np1)
#     python tools/mxnet_unittests/run.py /tmp/mxtests/tests/python/unittest --python VENV_DIR/bin/python
set -eu
VENV=${1:-/tmp/hy-np1}
NUMPY=${NUMPY:-1.23.5}
PYTHON=${PYTHON:-python3}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
"$PYTHON" -m venv "$VENV"
case "$NUMPY" in
    1.1[0-9].*|1.2[01].*)   # older than the package's numpy>=1.22 floor
        "$VENV/bin/pip" install -q "numpy==$NUMPY" "scipy==1.5.4" "pytest>=7" packaging \
            "libcst>=1.0" "click>=8.0" "pathspec>=0.12" "threadpoolctl>=3.1" "platformdirs>=3" "tomli>=1.1"
        "$VENV/bin/pip" install -q --no-deps -e "$REPO" ;;
    *)
        "$VENV/bin/pip" install -q "numpy==$NUMPY" "scipy>=1.10,<1.14" "pytest>=7" packaging
        "$VENV/bin/pip" install -q -e "$REPO" ;;
esac
"$VENV/bin/python" -c "import numpy, hybridize.runtime; print('numpy', numpy.__version__, 'hybridize', hybridize.__file__)"
