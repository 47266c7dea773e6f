"""Builders of parameter files byte by byte, hostile ones included (importable as ``param_files``).

MXNet's ``.params`` layout is written here independently of ``hybridize.runtime.graph.params`` so
that the tests do not check the reader against itself: ``dense``/``row_sparse``/``csr`` produce one
array record, :func:`params_file` the list around them (``NDArray::Save``). :func:`npz_member`
writes a ``.npy`` member with any header, :func:`zip64_deflated_zeros` a real zip whose one member
inflates to gigabytes of zeros from a few megabytes (built from repeated full-flush deflate blocks,
so making it costs a CRC pass, not a compression pass).
"""
from __future__ import annotations

import io
import struct
import zipfile
import zlib

V2 = 0xF993FAC9
F32, I64 = 0, 6


def dense(shape, data: bytes = b"", flag: int = F32) -> bytes:
    return struct.pack(f"<Iii{len(shape)}qiii", V2, 0, len(shape), *shape, 1, 0, flag) + data


def _shape(shape) -> bytes:
    return struct.pack(f"<i{len(shape)}q", len(shape), *shape)


def row_sparse(shape, data_shape, data: bytes, rows: list[int]) -> bytes:
    """stype 1: storage shape, shape, ctx, dtype, aux (dtype, shape), data, aux data."""
    return (struct.pack("<Ii", V2, 1) + _shape(data_shape) + _shape(shape) + struct.pack("<iii", 1, 0, F32)
            + struct.pack("<i", I64) + _shape((len(rows),)) + data + struct.pack(f"<{len(rows)}q", *rows))


def csr(shape, values: list[float], indptr: list[int], cols: list[int]) -> bytes:
    """stype 2: aux 0 indptr, aux 1 column indices."""
    return (struct.pack("<Ii", V2, 2) + _shape((len(values),)) + _shape(shape) + struct.pack("<iii", 1, 0, F32)
            + struct.pack("<i", I64) + _shape((len(indptr),)) + struct.pack("<i", I64) + _shape((len(cols),))
            + struct.pack(f"<{len(values)}f", *values) + struct.pack(f"<{len(indptr)}q", *indptr)
            + struct.pack(f"<{len(cols)}q", *cols))


def params_file(records: dict[str, bytes]) -> bytes:
    out = [struct.pack("<QQQ", 0x112, 0, len(records))] + list(records.values())
    out.append(struct.pack("<Q", len(records)))
    for name in records:
        raw = name.encode()
        out.append(struct.pack("<Q", len(raw)) + raw)
    return b"".join(out)


def npy_header(shape, descr: str = "<f4", fortran: bool = False) -> bytes:
    text = "{'descr': %r, 'fortran_order': %r, 'shape': %r, }" % (descr, fortran, tuple(shape))
    text += " " * (-(len(text) + 11) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1")


def npz(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def zip64_deflated_zeros(name: str, header: bytes, zeros: int, chunk: int = 1 << 20) -> bytes:
    """A zip with one deflated member ``header + zeros*b"\\0"`` (zip64 sizes)."""
    assert zeros % chunk == 0
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = bytes(chunk)
    head = co.compress(header) + co.flush(zlib.Z_FULL_FLUSH)
    body = co.compress(block) + co.flush(zlib.Z_FULL_FLUSH)
    again = co.compress(block) + co.flush(zlib.Z_FULL_FLUSH)
    assert body == again  # a full flush resets the state: every chunk compresses to the same bytes
    stream = head + body * (zeros // chunk) + co.flush()
    crc = zlib.crc32(header)
    for _ in range(zeros // chunk):
        crc = zlib.crc32(block, crc)
    size, csize = len(header) + zeros, len(stream)
    raw = name.encode()
    extra = struct.pack("<HHQQ", 1, 16, size, csize)
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, 0, 0x21, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                        len(raw), len(extra)) + raw + extra
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 8, 0, 0x21, crc, 0xFFFFFFFF,
                          0xFFFFFFFF, len(raw), len(extra), 0, 0, 0, 0, 0) + raw + extra
    offset = len(local) + len(stream)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), offset, 0)
    return local + stream + central + end
