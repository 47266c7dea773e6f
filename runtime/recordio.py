"""MXNet's RecordIO files (``mxnet.recordio``), read and written in pure Python, byte for byte as
dmlc-core's ``RecordIOWriter``/``RecordIOReader`` do, so files move freely between MXNet and here.

The format: each record is a header of two little-endian uint32, the magic ``0xced7230a`` and
``lrec = cflag << 29 | length``, then ``length`` bytes padded with zeros to a multiple of 4. A record
whose payload holds the magic number at a 4-byte-aligned offset is split there into parts (cflag 1
first, 2 middle, 3 last; 0 a whole record) and the magic itself is dropped; the reader puts it back.
An index file (``.idx``) has one ``key\\tbyte offset`` line per record.

``pack``/``unpack`` add MXNet's image-record header (``IfQQ``: flag, label, id, id2; a label array is
stored after the header as float32 and counted in ``flag``). ``pack_img``/``unpack_img`` encode and
decode images through Pillow (the optional ``image`` extra) in OpenCV's channel order (BGR), as MXNet
does through ``cv2``.
"""
from __future__ import annotations

import io
import numbers
import os
import struct
from collections import namedtuple
from multiprocessing import current_process

import numpy as np

from .base import DataFileError

__all__ = ["IRHeader", "MXIndexedRecordIO", "MXRecordIO", "pack", "pack_img", "unpack", "unpack_img"]

_MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LEN_MASK = (1 << 29) - 1


def _encode_record(buf: bytes) -> bytes:
    """``buf`` as dmlc-core's ``RecordIOWriter::WriteRecord`` lays it out on disk."""
    n = len(buf)
    if n >= 1 << 29:
        raise ValueError("RecordIO only accepts records smaller than 2^29 bytes")
    parts = []
    start = 0
    pos = buf.find(_MAGIC_BYTES)
    while pos != -1 and pos + 4 <= (n >> 2) << 2:
        if pos % 4 == 0:  # only aligned occurrences are escaped, as the C++ scan does
            parts.append(struct.pack("<II", _MAGIC, ((1 if start == 0 else 2) << 29) | (pos - start)))
            parts.append(buf[start:pos])
            start = pos + 4
            pos = buf.find(_MAGIC_BYTES, start)
        else:
            pos = buf.find(_MAGIC_BYTES, pos + 1)
    parts.append(struct.pack("<II", _MAGIC, ((3 if start != 0 else 0) << 29) | (n - start)))
    parts.append(buf[start:])
    parts.append(b"\0" * (-n % 4))
    return b"".join(parts)


class MXRecordIO:
    """Reads/writes a RecordIO file sequentially (``flag`` 'r' or 'w'), as ``mxnet.recordio.MXRecordIO``.

    Picklable: a reader reopens itself in the process that unpickles it (DataLoader workers).
    """

    def __init__(self, uri: str, flag: str):
        self.uri = os.fspath(uri)
        self.flag = flag
        self.pid = None
        self.is_open = False
        self._file = None
        self.open()

    def open(self) -> None:
        """Opens the record file."""
        if self.flag == "w":
            self._file = open(self.uri, "wb")
            self.writable = True
        elif self.flag == "r":
            try:
                self._file = open(self.uri, "rb")
            except OSError as e:
                raise DataFileError(self.uri, f"cannot open the RecordIO file: {e.strerror}") from None
            self.writable = False
        else:
            raise ValueError("Invalid flag %s" % self.flag)
        self.pid = current_process().pid
        self.is_open = True

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __getstate__(self):
        is_open = self.is_open
        self.close()
        d = dict(self.__dict__)
        d["is_open"] = is_open
        d["_file"] = None
        return d

    def __setstate__(self, d):
        self.__dict__ = d
        is_open = d["is_open"]
        self.is_open = False
        if is_open:
            self.open()

    def _check_pid(self, allow_reset: bool = False) -> None:
        """A handle opened in another process is reopened (reads) or refused (writes), as MXNet."""
        if self.pid != current_process().pid:
            if allow_reset:
                self.reset()
            else:
                raise RuntimeError("Forbidden operation in multiple processes")

    def close(self) -> None:
        """Closes the record file."""
        if not self.is_open:
            return
        self._file.close()
        self._file = None
        self.is_open = False
        self.pid = None

    def reset(self) -> None:
        """Back to the first record (a writer truncates the file)."""
        self.close()
        self.open()

    def write(self, buf: bytes) -> None:
        """Appends ``buf`` as one record."""
        assert self.writable
        self._check_pid(allow_reset=False)
        if isinstance(buf, str):
            buf = buf.encode("utf-8")
        self._file.write(_encode_record(bytes(buf)))

    def tell(self) -> int:
        """Byte offset of the next record."""
        return self._file.tell()

    def read(self) -> bytes | None:
        """The next record, or None at the end of the file; a corrupt file raises :class:`DataFileError`."""
        assert not self.writable
        self._check_pid(allow_reset=False)
        f = self._file
        out = []
        while True:
            where = f.tell()
            head = f.read(8)
            if not head:
                if out:
                    raise DataFileError(self.uri, f"corrupt RecordIO file: record cut short at byte {where}")
                return None
            if len(head) != 8:
                raise DataFileError(self.uri, f"corrupt RecordIO file: truncated record header at byte {where}")
            magic, lrec = struct.unpack("<II", head)
            if magic != _MAGIC:
                raise DataFileError(self.uri, f"corrupt RecordIO file: no record starts at byte {where} "
                                              f"(magic 0x{magic:08x}, expected 0x{_MAGIC:08x})")
            cflag, length = lrec >> 29, lrec & _LEN_MASK
            padded = (length + 3) & ~3
            data = f.read(padded)
            if len(data) != padded:
                raise DataFileError(self.uri, f"corrupt RecordIO file: record at byte {where} announces "
                                              f"{length} bytes, the file ends after {len(data)}")
            out.append(data[:length])
            if cflag in (0, 3):
                return _MAGIC_BYTES.join(out)


class MXIndexedRecordIO(MXRecordIO):
    """RecordIO with random access through an index file (``key\\toffset`` lines)."""

    def __init__(self, idx_path: str, uri: str, flag: str, key_type=int):
        self.idx_path = os.fspath(idx_path)
        self.idx: dict = {}
        self.keys: list = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self) -> None:
        super().open()
        self.idx = {}
        self.keys = []
        try:
            self.fidx = open(self.idx_path, self.flag)
        except OSError as e:
            raise DataFileError(self.idx_path, f"cannot open the RecordIO index file: {e.strerror}") from None
        if not self.writable:
            size = os.path.getsize(self.uri)
            for lineno, line in enumerate(iter(self.fidx.readline, ""), 1):
                fields = line.strip().split("\t")
                try:
                    key = self.key_type(fields[0])
                    pos = int(fields[1])
                except (ValueError, IndexError):
                    raise DataFileError(self.idx_path, f"corrupt index file: line {lineno} is {line.strip()!r}, "
                                                       "expected 'key<TAB>byte offset'") from None
                if not 0 <= pos < max(size, 1):
                    raise DataFileError(self.idx_path, f"corrupt index file: line {lineno} points at byte {pos}, "
                                                       f"past the end of {self.uri} ({size} bytes)")
                self.idx[key] = pos
                self.keys.append(key)

    def close(self) -> None:
        if not self.is_open:
            return
        super().close()
        self.fidx.close()

    def __getstate__(self):
        d = super().__getstate__()
        d["fidx"] = None
        return d

    def seek(self, idx) -> None:
        """Moves the read position to the record of key ``idx``."""
        assert not self.writable
        self._check_pid(allow_reset=True)
        self._file.seek(self.idx[idx])

    def tell(self) -> int:
        assert self.writable
        return self._file.tell()

    def read_idx(self, idx) -> bytes:
        """The record of key ``idx``."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf: bytes) -> None:
        """Appends ``buf`` under key ``idx``."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write("%s\t%d\n" % (str(key), pos))
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
"""The header of an image record: flag, label (number or float array), id, id2."""

_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s: bytes) -> bytes:
    """``header`` + ``s`` as one image-record payload (a label array goes after the header, float32)."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s: bytes):
    """(IRHeader, payload) of an image-record payload."""
    if len(s) < _IR_SIZE:
        raise DataFileError(None, f"corrupt image record: {len(s)} bytes, shorter than its {_IR_SIZE}-byte header")
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < header.flag * 4:
            raise DataFileError(None, f"corrupt image record: header announces {header.flag} labels, "
                                      f"only {len(s)} bytes follow")
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("encoding and decoding images needs Pillow: pip install 'hybridize[image]'") from None
    return Image


def _png_gray(rgb: np.ndarray) -> np.ndarray:
    """OpenCV's grayscale decoding of a colour PNG: libpng's ``png_set_rgb_to_gray(0.299, 0.587)``
    in 15-bit fixed point, truncated (``(9797 R + 19234 G + 3737 B) >> 15``); grey pixels unchanged."""
    r, g, b = (rgb[..., k].astype(np.uint32) for k in range(3))
    out = ((9797 * r + 19234 * g + 3737 * b) >> 15).astype(np.uint8)
    grey = (r == g) & (r == b)
    out[grey] = rgb[..., 0][grey]
    return out


def decode_image(buf: bytes, flag: int = -1, to_rgb: bool = False) -> np.ndarray:
    """Encoded image bytes -> HxWxC uint8 (HxW for ``flag`` 0 through cv2's ``IMREAD_GRAYSCALE``...).

    ``flag`` as OpenCV: -1 unchanged, 0 grayscale (HxW), 1 three channels. Channel order BGR unless
    ``to_rgb``. A buffer that is not an image raises :class:`DataFileError`.
    """
    Image = _pil()
    try:
        im = Image.open(io.BytesIO(bytes(buf)))
        im.load()
    except Exception as e:  # PIL raises UnidentifiedImageError, OSError, SyntaxError ...
        raise DataFileError(None, f"cannot decode image ({len(buf)} bytes): {e}") from None
    if flag == 0:
        if im.format == "PNG" and im.mode in ("RGB", "RGBA", "P"):
            return _png_gray(np.asarray(im.convert("RGB")))
        # OpenCV's grayscale (libjpeg's for JPEG): 0.299 R + 0.587 G + 0.114 B rounded, as Pillow's "L"
        return np.asarray(im.convert("L"))
    if flag > 0 or im.mode not in ("L", "RGBA", "LA"):
        arr = np.asarray(im.convert("RGB"))
    else:
        arr = np.asarray(im.convert("RGBA") if im.mode in ("RGBA", "LA") else im)
    if arr.ndim == 3 and not to_rgb:
        arr = arr[..., [2, 1, 0] + ([3] if arr.shape[2] == 4 else [])]
    return np.ascontiguousarray(arr)


def encode_image(img: np.ndarray, img_fmt: str = ".jpg", quality: int = 95, is_rgb: bool = False) -> bytes:
    """HxW or HxWxC uint8 (BGR unless ``is_rgb``) encoded as JPEG or PNG bytes."""
    Image = _pil()
    arr = np.asarray(img)
    if arr.dtype != np.uint8:
        arr = arr.astype(np.uint8)
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[..., 0]
    if arr.ndim == 3 and not is_rgb:
        arr = arr[..., [2, 1, 0] + ([3] if arr.shape[2] == 4 else [])]
    im = Image.fromarray(np.ascontiguousarray(arr))
    out = io.BytesIO()
    fmt = img_fmt.upper().lstrip(".")
    if fmt in ("JPG", "JPEG"):
        im.save(out, format="JPEG", quality=quality)
    elif fmt == "PNG":
        im.save(out, format="PNG", compress_level=quality if 0 <= quality <= 9 else 3)
    else:
        raise ValueError(f"unsupported image format {img_fmt!r} (use .jpg or .png)")
    return out.getvalue()


def unpack_img(s: bytes, iscolor: int = -1):
    """(IRHeader, image as a BGR uint8 numpy array) of an image record (``iscolor`` as cv2.imdecode)."""
    header, s = unpack(s)
    return header, decode_image(s, iscolor)


def pack_img(header, img, quality: int = 95, img_fmt: str = ".jpg") -> bytes:
    """``header`` + ``img`` (BGR uint8, as cv2) encoded as JPEG (``quality`` 1-100) or PNG (compression 0-9)."""
    return pack(header, encode_image(img, img_fmt, quality))
