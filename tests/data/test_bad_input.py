"""Bad input gives one clear error line, never a hang or an orphan process: DataLoader workers that
raise, are killed or stall; a parent killed under its workers; corrupt RecordIO and index files;
missing dataset files."""
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from hybridize.runtime import recordio
from hybridize.runtime.base import (
    DataFileError,
    DataLoaderWorkerError,
    DatasetFileNotFoundError,
)
from hybridize.runtime.gluon import data as gdata
from hybridize.runtime.gluon.data.vision import CIFAR10, CIFAR100, MNIST, FashionMNIST


class _Faulty(gdata.Dataset):
    """Ten samples; sample 5 misbehaves as told."""

    def __init__(self, how):
        self.how = how

    def __len__(self):
        return 10

    def __getitem__(self, idx):
        if idx == 5:
            if self.how == "raise":
                raise ValueError("sample 5 is broken\nsecond line of the message")
            if self.how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.how == "exit":
                os._exit(3)
            if self.how == "stall":
                time.sleep(30)
        return np.float32(idx)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how, message", [
    ("raise", r"DataLoader worker \d \(pid \d+\) raised ValueError: sample 5 is broken$"),
    ("kill", r"DataLoader worker \d \(pid \d+\) was killed by signal SIGKILL$"),
    ("exit", r"DataLoader worker \d \(pid \d+\) exited unexpectedly \(exit code 3\)$"),
])
def test_a_failing_worker_is_one_error_line_and_the_pool_is_stopped(how, message):
    loader = gdata.DataLoader(_Faulty(how), batch_size=2, num_workers=2)
    pids = loader._worker_pool.pids
    with pytest.raises(DataLoaderWorkerError, match=message) as err:
        list(loader)
    assert "\n" not in str(err.value)
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)


def test_the_workers_traceback_is_kept_on_the_error():
    with pytest.raises(DataLoaderWorkerError) as err:
        list(gdata.DataLoader(_Faulty("raise"), batch_size=2, num_workers=1))
    assert "sample 5 is broken" in err.value.worker_traceback and "__getitem__" in err.value.worker_traceback


def test_a_stalled_worker_times_out():
    loader = gdata.DataLoader(_Faulty("stall"), batch_size=2, num_workers=1, timeout=1)
    with pytest.raises(DataLoaderWorkerError, match=r"no batch within timeout=1 s"):
        list(loader)


def test_the_loader_works_again_after_a_failed_epoch():
    ds = _Faulty("raise")
    loader = gdata.DataLoader(ds, batch_size=2, num_workers=2)
    with pytest.raises(DataLoaderWorkerError):
        list(loader)
    ds.how = "fine"
    assert [b.asnumpy().tolist() for b in loader][2] == [4.0, 5.0]


def test_workers_die_with_a_killed_parent():
    script = textwrap.dedent("""
        import sys, time
        import numpy as np
        from hybridize.runtime.gluon import data as gdata
        loader = gdata.DataLoader(gdata.SimpleDataset(list(range(8))), batch_size=2, num_workers=2)
        print(*loader._worker_pool.pids, flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids), "worker processes outlived their parent"


def test_a_script_whose_worker_raises_ends_promptly_with_the_error_as_its_last_line():
    script = textwrap.dedent("""
        from hybridize.runtime.gluon import data as gdata
        class D(gdata.Dataset):
            def __len__(self):
                return 6
            def __getitem__(self, i):
                if i == 3:
                    raise KeyError("no sample 3")
                return i
        for batch in gdata.DataLoader(D(), batch_size=2, num_workers=2):
            pass
    """)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert res.returncode == 1
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("hybridize.runtime.base.DataLoaderWorkerError: DataLoader worker ")
    assert last.endswith("raised KeyError: 'no sample 3'")


# -- RecordIO --------------------------------------------------------------------------------------

def _write(path, records):
    w = recordio.MXIndexedRecordIO(str(path) + ".idx", str(path) + ".rec", "w")
    for i, r in enumerate(records):
        w.write_idx(i, r)
    w.close()
    return str(path) + ".rec", str(path) + ".idx"


def test_a_truncated_record_names_the_file_and_the_offset(tmp_path):
    rec, idx = _write(tmp_path / "t", [b"x" * 40, b"y" * 40])
    with open(rec, "r+b") as f:
        f.truncate(os.path.getsize(rec) - 10)
    r = recordio.MXRecordIO(rec, "r")
    assert r.read() == b"x" * 40
    with pytest.raises(DataFileError, match=r"t\.rec: corrupt RecordIO file: record at byte 48 announces 40 bytes"):
        r.read()


def test_a_file_that_is_not_recordio_is_refused(tmp_path):
    bad = tmp_path / "bad.rec"
    bad.write_bytes(b"this is not a record file at all")
    with pytest.raises(DataFileError, match=r"bad\.rec: corrupt RecordIO file: no record starts at byte 0"):
        recordio.MXRecordIO(str(bad), "r").read()


def test_an_index_pointing_into_a_record_is_caught_on_read(tmp_path):
    rec, idx = _write(tmp_path / "i", [b"a" * 16, b"b" * 16])
    with open(idx, "w") as f:
        f.write("0\t0\n1\t6\n")
    r = recordio.MXIndexedRecordIO(idx, rec, "r")
    assert r.read_idx(0) == b"a" * 16
    with pytest.raises(DataFileError, match="no record starts at byte 6"):
        r.read_idx(1)


@pytest.mark.parametrize("content, problem", [
    ("0\t0\nnot a line\n", r"line 2 is 'not a line', expected 'key<TAB>byte offset'"),
    ("0\t0\n1\t99999\n", r"line 2 points at byte 99999, past the end of"),
])
def test_a_corrupt_index_file_is_one_line(tmp_path, content, problem):
    rec, idx = _write(tmp_path / "c", [b"a" * 16, b"b" * 16])
    with open(idx, "w") as f:
        f.write(content)
    with pytest.raises(DataFileError, match=r"c\.idx: corrupt index file: " + problem):
        gdata.RecordFileDataset(rec)


def test_a_missing_record_file_is_one_line(tmp_path):
    with pytest.raises(DataFileError, match=r"nope\.rec: cannot open the RecordIO file: No such file"):
        recordio.MXRecordIO(str(tmp_path / "nope.rec"), "r")


# -- datasets --------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls, expected", [
    (MNIST, "train-labels-idx1-ubyte.gz or train-labels-idx1-ubyte"),
    (FashionMNIST, "train-labels-idx1-ubyte.gz or train-labels-idx1-ubyte"),
    (CIFAR10, "data_batch_1.bin"),
    (CIFAR100, "train.bin"),
])
def test_a_missing_dataset_file_names_the_file_expected_and_downloads_nothing(tmp_path, cls, expected):
    with pytest.raises(DatasetFileNotFoundError, match="never downloads") as err:
        cls(root=str(tmp_path))
    assert expected in str(err.value) and "\n" not in str(err.value)
    assert os.listdir(tmp_path) == []
