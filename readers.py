"""Opening what ``hybridize`` reads (``hybridize.readers``): regular files only, with size caps.

A FIFO given as a symbol JSON, a ``.params``, an input ``.npy`` or a source file would block its
reader forever at ``open``; a device (``/dev/zero``, directly or through a symlink) would be read
until memory runs out. So files are opened non-blocking, checked with ``fstat`` and refused unless
regular, and whole-file reads stop at a declared cap. The refusal is an ``OSError`` whose
``strerror`` reads as the end of a sentence ("cannot read: is a FIFO, not a regular file"), so the
callers' existing one-line messages name it.
"""
from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

__all__ = ["NotRegularFileError", "TooLargeError", "open_regular", "read_capped", "kind_of"]


class NotRegularFileError(OSError):
    """``path`` is a FIFO, a device, a socket or a directory: never read as a file."""


class TooLargeError(OSError):
    """A file bigger than the declared cap for what it is meant to be."""


def kind_of(mode: int) -> str:
    """"a FIFO", "a character device", ... for the messages."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """``open(path, "rb")`` that refuses anything but a regular file without blocking on it."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", os.fspath(path))
        if not stat.S_ISREG(mode):
            kind = kind_of(mode)
            raise NotRegularFileError(errno.EINVAL, f"is {kind}, not a regular file" if kind.startswith("a ")
                                      else "is not a regular file", os.fspath(path))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_capped(path: str | os.PathLike, cap: int, what: str, override: str = "") -> bytes:
    """The whole of regular file ``path``, refused beyond ``cap`` bytes (``what``: "a symbol JSON
    file"; ``override``: the environment variable that raises the cap, named in the message)."""
    with open_regular(path) as f:
        size = os.fstat(f.fileno()).st_size
        data = b""
        if size <= cap:
            # read what fstat says is there (``read(cap)`` would allocate the whole cap up front),
            # then on in bounded chunks in case the file grew since
            parts = [f.read(size + 1)]
            total = len(parts[0])
            while total > size and total <= cap:
                chunk = f.read(min(1 << 20, cap + 1 - total))
                if not chunk:
                    break
                parts.append(chunk)
                total += len(chunk)
            data = b"".join(parts) if len(parts) > 1 else parts[0]
        if size > cap or len(data) > cap:
            how = f" (set {override} to allow more)" if override else ""
            raise TooLargeError(errno.EFBIG, f"is larger than {cap} bytes, the limit for {what}{how}",
                                os.fspath(path))
        return data


def cap_from_env(name: str, default: int) -> int:
    """The cap in environment variable ``name`` (bytes, a plain integer) or ``default``."""
    raw = os.environ.get(name, "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return default
