"""Records the CSR structure of MXNet 1.9.1's ``mx.io.LibSVMIter`` batches (``data``, ``indices``,
``indptr`` of the data and, from a label file, of the labels; ``stype``) on the LibSVM files of
``tests/data/fixtures`` (``iters_*.t``, written by ``tools/record_io_iters_mxnet.py``), for
``tests/data/test_io_iters.py``. Needs MXNet; the test only reads.

    /tmp/mxnet-venv/bin/python tools/record_libsvm_csr_mxnet.py tests/data/fixtures
"""
import json
import os
import sys

import mxnet as mx

CASES = {
    "doc": dict(data_libsvm="iters_data.t", data_shape=(3,), batch_size=3),
    "label_file": dict(data_libsvm="iters_data.t", data_shape=(3,), label_libsvm="iters_label.t", label_shape=(3,),
                       batch_size=3),
    "seven": dict(data_libsvm="iters_seven.t", data_shape=(4,), batch_size=3),
    "seven_b7": dict(data_libsvm="iters_seven.t", data_shape=(4,), batch_size=7),
}


def _csr(x):
    return {"stype": x.stype, "data": x.data.asnumpy().tolist(), "indices": x.indices.asnumpy().tolist(),
            "indptr": x.indptr.asnumpy().tolist(), "dtypes": [str(x.data.dtype.__name__), str(x.indices.dtype.__name__),
                                                              str(x.indptr.dtype.__name__)]} \
        if x.stype == "csr" else {"stype": x.stype}


def main(fixtures):
    os.chdir(fixtures)
    out = {}
    for name, kw in CASES.items():
        it = mx.io.LibSVMIter(**kw)
        epochs = []
        for _ in range(2):
            epochs.append([{"data": _csr(b.data[0]), "label": _csr(b.label[0])} for b in it])
            it.reset()
        out[name] = epochs
    with open("libsvm_csr.json", "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])
