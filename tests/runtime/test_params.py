"""MXNet's binary NDArray-list format (.params) and .npz: identical bytes after read + write on
every shipped file, all dtypes, named and nameless lists, one-line errors for bad files."""
from __future__ import annotations

import os
import struct

import numpy as np
import pytest

from support import FIXTURES

SHIPPED = sorted((FIXTURES / "models").glob("*/*.params"))
DTYPES = ["float32", "float64", "float16", "uint8", "int8", "int32", "int64"]


@pytest.mark.parametrize("path", SHIPPED, ids=[f"{p.parent.name}/{p.name}" for p in SHIPPED])
def test_read_write_gives_identical_bytes(path, tmp_path) -> None:
    from hybridize.runtime.graph import params

    data = params.load(path)
    assert isinstance(data, dict) and data
    if path.name == "model-0000.params":
        assert all(k.startswith(("arg:", "aux:")) for k in data)
    else:
        assert not any(k.startswith(("arg:", "aux:")) for k in data)
    out = tmp_path / "again.params"
    params.save(out, data)
    assert out.read_bytes() == path.read_bytes()
    assert os.listdir(tmp_path) == ["again.params"]


def test_export_and_save_parameters_files_agree() -> None:
    """model-0000.params (arg:/aux: exported names) and model.params (structural names) hold the
    same values, mapped by names.json."""
    import json

    from hybridize.runtime.graph import params

    d = FIXTURES / "models" / "mobilenet0.25"
    exported = params.strip_prefixes(params.load(d / "model-0000.params"))
    structural = params.load(d / "model.params")
    names = json.loads((d / "names.json").read_text())
    assert set(names) == set(structural)
    for s, e in names.items():
        np.testing.assert_array_equal(structural[s], exported[e])
    args, aux = params.split_arg_aux(params.load(d / "model-0000.params"))
    assert aux and all("running" in k or "moving" in k for k in aux)
    assert params.join_arg_aux(args, aux).keys() == params.load(d / "model-0000.params").keys()


@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
def test_dtypes_round_trip(dtype, tmp_path) -> None:
    from hybridize.runtime.graph import params

    a = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    params.save(tmp_path / "a.params", {"x": a, "y": a[:1]})
    back = params.load(tmp_path / "a.params")
    assert list(back) == ["x", "y"]
    assert back["x"].dtype == np.dtype(dtype) and back["x"].shape == (2, 3, 4)
    np.testing.assert_array_equal(back["x"], a)
    np.testing.assert_array_equal(back["y"], a[:1])


def test_mxnet_dtype_flags_and_header_layout() -> None:
    from hybridize.runtime.graph import params

    raw = params.dumps({"w": np.zeros((2, 3), np.float16)})
    magic, reserved, n = struct.unpack_from("<QQQ", raw, 0)
    assert (magic, reserved, n) == (0x112, 0, 1)
    v2, stype, ndim, d0, d1, dev_type, dev_id, flag = struct.unpack_from("<Iiiqqiii", raw, 24)
    assert (v2, stype, ndim, d0, d1, dev_type, dev_id, flag) == (0xF993FAC9, 0, 2, 2, 3, 1, 0, 2)


def test_nameless_list_scalar_empty_and_none(tmp_path) -> None:
    from hybridize.runtime.graph import params

    data = [np.arange(3, dtype=np.int64), np.array(2.5, dtype=np.float32), np.zeros((0, 4), np.float32), None]
    params.save(tmp_path / "l.params", data)
    back = params.load(tmp_path / "l.params")
    assert isinstance(back, list) and len(back) == 4
    np.testing.assert_array_equal(back[0], data[0])
    assert back[1].shape == () and back[1] == np.float32(2.5)
    assert back[2].shape == (0, 4)
    assert back[3] is None
    assert params.dumps(back) == (tmp_path / "l.params").read_bytes()


def test_legacy_v1_array_is_read() -> None:
    from hybridize.runtime.graph import params

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    arr = struct.pack("<Iiqqiii", 0xF993FAC8, 2, 2, 3, 1, 0, 0) + a.tobytes()
    raw = struct.pack("<QQQ", 0x112, 0, 1) + arr + struct.pack("<Q", 1) + struct.pack("<Q", 5) + b"arg:a"
    np.testing.assert_array_equal(params.loads(raw)["arg:a"], a)
    legacy = struct.pack("<III", 2, 2, 3) + struct.pack("<iii", 1, 0, 0) + a.tobytes()
    raw = struct.pack("<QQQ", 0x112, 0, 1) + legacy + struct.pack("<Q", 0)
    np.testing.assert_array_equal(params.loads(raw)[0], a)


def test_npz_read_write(tmp_path) -> None:
    from hybridize.runtime.graph import params

    d = {"a": np.ones((2, 2), np.float32), "b": np.arange(3)}
    params.save(tmp_path / "p.npz", d)
    back = params.load(tmp_path / "p.npz")
    assert set(back) == {"a", "b"}
    np.testing.assert_array_equal(back["b"], d["b"])
    assert sorted(os.listdir(tmp_path)) == ["p.npz"]


def test_npz_with_pickled_objects_is_refused(tmp_path) -> None:
    from hybridize.runtime.base import LoadError
    from hybridize.runtime.graph import params

    np.savez(tmp_path / "evil.npz", x=np.array([{"a": 1}], dtype=object))
    with pytest.raises(LoadError, match="pickled objects"):
        params.load(tmp_path / "evil.npz")


# -- bad files -----------------------------------------------------------------------------------
def _bad(tmp_path, content: bytes) -> str:
    from hybridize.runtime.base import LoadError
    from hybridize.runtime.graph import params

    p = tmp_path / "bad.params"
    p.write_bytes(content)
    with pytest.raises(LoadError) as info:
        params.load(p)
    msg = str(info.value)
    assert msg.startswith(str(p) + ": ") and "\n" not in msg
    return msg


SHIPPED_MLP = FIXTURES / "models" / "seed_mlp" / "model-0000.params"


@pytest.mark.parametrize("cut", [0, 7, 20, 40, 5000, -1])
def test_truncated_params(cut, tmp_path) -> None:
    raw = SHIPPED_MLP.read_bytes()
    raw = raw[:cut] if cut >= 0 else raw[:-1]
    msg = _bad(tmp_path, raw)
    assert f"truncated at byte {len(raw)} while reading" in msg


def test_garbled_params(tmp_path) -> None:
    raw = bytearray(SHIPPED_MLP.read_bytes())
    assert "not an MXNet parameter file" in _bad(tmp_path, b"hello, this is not a parameter file")
    g = bytearray(raw)
    g[24:28] = b"\xff\xff\xff\xff"        # first array's header
    assert "garbled: array #0 (of 6)" in _bad(tmp_path, bytes(g))
    g = bytearray(raw)
    g[32:36] = struct.pack("<i", 99)       # ndim
    assert "garbled: array #0 (of 6) at byte 24 has 99 dimensions" in _bad(tmp_path, bytes(g))
    g = bytearray(raw)
    g[60:64] = struct.pack("<i", 42)       # dtype flag
    assert "unsupported dtype flag 42" in _bad(tmp_path, bytes(g))
    assert "unexpected bytes" in _bad(tmp_path, bytes(raw) + b"junk")
    g = bytearray(raw)
    g[16:24] = struct.pack("<Q", 10**12)   # array count
    assert "garbled: claims" in _bad(tmp_path, bytes(g))


def test_missing_file(tmp_path) -> None:
    from hybridize.runtime.base import LoadError
    from hybridize.runtime.graph import params

    with pytest.raises(LoadError, match="no such file"):
        params.load(tmp_path / "nope.params")


def test_unsupported_dtype_on_write(tmp_path) -> None:
    from hybridize.runtime.graph import params

    with pytest.raises(TypeError, match="complex64"):
        params.save(tmp_path / "c.params", {"c": np.zeros(2, np.complex64)})
    assert os.listdir(tmp_path) == []


def test_sparse_arrays_are_read_dense() -> None:
    """row_sparse and csr arrays (MXNet's layout: storage shape, shape, ctx, dtype, aux types and
    shapes, data, aux data) come back as dense arrays."""
    from hybridize.runtime.graph import params

    def shape(*d):
        return struct.pack(f"<i{len(d)}q", len(d), *d)

    vals = np.array([[1, 2], [3, 4]], np.float32)
    rsp = (struct.pack("<Ii", 0xF993FAC9, 1) + shape(2, 2) + shape(4, 2) + struct.pack("<iii", 1, 0, 0)
           + struct.pack("<i", 6) + shape(2) + vals.tobytes() + np.array([1, 3], np.int64).tobytes())
    data = np.array([5, 6, 7], np.float32)
    csr = (struct.pack("<Ii", 0xF993FAC9, 2) + shape(3) + shape(3, 4) + struct.pack("<iii", 1, 0, 0)
           + struct.pack("<i", 6) + shape(4) + struct.pack("<i", 6) + shape(3) + data.tobytes()
           + np.array([0, 1, 1, 3], np.int64).tobytes() + np.array([2, 0, 3], np.int64).tobytes())
    raw = struct.pack("<QQQ", 0x112, 0, 2) + rsp + csr + struct.pack("<Q", 0)
    a, b = params.loads(raw)
    np.testing.assert_array_equal(a, [[0, 0], [1, 2], [0, 0], [3, 4]])
    np.testing.assert_array_equal(b, [[0, 0, 5, 0], [0, 0, 0, 0], [6, 0, 0, 7]])
