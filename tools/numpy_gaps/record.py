"""Record MXNet 1.9.1's answers for the np-mode Gluon cases of tests/numpy/np_gaps_cases.py (MXNet
venv, not the suite): output kinds of blocks mixing np and classic outputs, parameter array
classes, np.random.multivariate_normal's shapes, the _numpy_op_doc signatures, np-mode RNN layers.

    /tmp/mxnet-venv/bin/python tools/numpy_gaps/record.py            # writes tests/numpy/fixtures/np_gaps.json
    python tools/numpy_gaps/record.py --check                        # the runtime's answers, diffed
"""
from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "numpy"))
from np_gaps_cases import record_all  # noqa: E402

OUT = os.path.join(REPO, "tests", "numpy", "fixtures", "np_gaps.json")


def main() -> None:
    if "--check" in sys.argv:
        import hybridize.runtime as mx
        got, want = record_all(mx), json.load(open(OUT))
        for part, cases in want.items():
            for k, v in cases.items():
                if got[part].get(k) != v:
                    print(f"DIFF {part}/{k}: runtime {str(got[part].get(k))[:200]} MXNet {str(v)[:200]}")
        return
    import mxnet as mx
    mx.random.seed(0)
    with open(OUT, "w") as f:
        json.dump(record_all(mx), f, indent=0, sort_keys=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
