"""Rebuild the real-world checker set of docs/checker-realworld.md under /tmp/realworld.

Not part of the package or the tests: it needs the network (``pip download``) once. Every file of
the listed PyPI releases that defines ``hybrid_forward`` is copied unmodified to
``OUT/<owner>/<repo>/<path inside the archive, without its top folder>``; MXNet's own example
comes from the local MXNet mirror at the recorded commit. ``--np`` also copies the NumPy-mode
files (``from mxnet import np, npx`` or ``npx.set_np``) to ``OUT-np/`` (d2l's ``mxnet.py``).

    python tools/realworld/collect.py [--dl /tmp/rwdl] [--out /tmp/realworld] [--np /tmp/realworld-np]
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

#: (pip requirement, owner/repo it comes from)
RELEASES: list[tuple[str, str]] = [
    ("gluoncv==0.10.5.post0", "dmlc/gluon-cv"),
    ("gluonnlp==0.10.0", "dmlc/gluon-nlp"),
    ("sockeye==2.3.17", "awslabs/sockeye"),
    ("gluonts==0.8.1", "awslabs/gluon-ts"),
    ("gluoncv2==0.0.64", "osmr/imgclsmob"),
    ("gluonfr==1.0.2", "THUFutureLab/gluon-face"),
    ("gluonar==0.1.0", "gluon-audio/gluonar"),
    ("d2l==0.17.6", "d2l-ai/d2l-en"),
]
#: files of MXNet's repository, read from the local mirror
MXNET_FILES: list[tuple[str, str]] = [("4957c7c4739d", "example/gluon/embedding_learning/model.py")]
MXNET_MIRROR = "/work/.mirror/apache+mxnet/repo"

HYBRID = re.compile(rb"^\s*def\s+hybrid_forward\s*\(", re.M)
NP_MODE = re.compile(rb"^\s*(from\s+mxnet\s+import\s+.*\bnpx?\b|.*\bnpx\.set_np\(\))", re.M)


def members(archive: Path):
    """Yield (path without the archive's top folder for sdists, bytes) of every .py file."""
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as z:
            for name in z.namelist():
                if name.endswith(".py"):
                    yield name, z.read(name)
    else:
        with tarfile.open(archive) as t:
            for m in t.getmembers():
                if m.isfile() and m.name.endswith(".py"):
                    yield m.name.split("/", 1)[1], t.extractfile(m).read()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dl", default="/tmp/rwdl")
    ap.add_argument("--out", default="/tmp/realworld")
    ap.add_argument("--np", default="/tmp/realworld-np")
    args = ap.parse_args(argv)
    dl, out, npout = Path(args.dl), Path(args.out), Path(args.np)
    dl.mkdir(parents=True, exist_ok=True)
    for req, _ in RELEASES:
        name, version = req.split("==")
        if not any(dl.glob(f"{name}-{version}*")):
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", req, "-d", str(dl)],
                           check=True)
    counts: dict[str, list[int]] = {}
    for req, repo in RELEASES:
        name, version = req.split("==")
        (archive,) = [p for p in dl.glob(f"{name}-{version}*") if not p.name.endswith(".metadata")]
        c = counts.setdefault(repo, [0, 0, 0])
        for path, data in members(archive):
            for pattern, root, slot in ((HYBRID, out, 0), (NP_MODE, npout, 2)):
                if pattern.search(data):
                    dest = root / repo / path
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(data)
                    c[slot] += 1
                    if slot == 0:
                        c[1] += len(HYBRID.findall(data))
    for commit, path in MXNET_FILES:
        data = subprocess.run(["git", "-C", MXNET_MIRROR, "show", f"{commit}:{path}"],
                              check=True, capture_output=True).stdout
        dest = out / "apache/mxnet" / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
        c = counts.setdefault("apache/mxnet", [0, 0, 0])
        c[0] += 1
        c[1] += len(HYBRID.findall(data))
    print("repo files hybrid_forward np-mode-files")
    for repo, (f, m, n) in counts.items():
        print(repo, f, m, n)
    print("total", sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
