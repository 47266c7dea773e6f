"""drive.py MODE [name-substring...]: run each spec in its own process; append RESULT lines to out/results-MODE.jsonl"""
import os as _os
import sys as _sys
_sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from paths import HERE, PKGS, OUT_DIR, TRANSPILED, MXNET_PYTHON  # noqa: E402,F401

import sys
import subprocess
import json
import os
sys.path.insert(0, HERE)
from specs import SPECS
mode = sys.argv[1]
pats = sys.argv[2:]
py = MXNET_PYTHON if mode == "mxnet" else sys.executable
os.makedirs(OUT_DIR, exist_ok=True)
for s in SPECS:
    if pats and not any(p in s["name"] for p in pats):
        continue
    try:
        p = subprocess.run([py, f"{HERE}/run.py", mode, s["name"]], capture_output=True, text=True, timeout=900)
        lines = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
        res = json.loads(lines[-1][7:]) if lines else {"name": s["name"], "mode": mode, "error": "no result: " + p.stderr[-1500:]}
    except subprocess.TimeoutExpired:
        res = {"name": s["name"], "mode": mode, "error": "timeout"}
    with open(f"{OUT_DIR}/results-{mode}.jsonl", "a") as f:
        f.write(json.dumps(res) + "\n")
    short = {k: v for k, v in res.items() if k != "tb"}
    print(json.dumps(short)[:600], flush=True)
