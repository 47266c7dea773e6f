"""Text from files (node names, paths, attribute values) made safe to print in a message.

A name may hold a NUL, a newline or a bidirectional override (U+202E) that reorders what a terminal
shows: printed raw it splits one error into two lines, or makes a name read backwards. Every
command-line message goes through :func:`printable`, which writes the characters Python does not
consider printable (controls, format characters such as the bidi overrides and isolates, line and
paragraph separators, lone surrogates from undecodable file names) as Python escapes (``\\x00``,
``\\n``, ``\\u202e``, ``\\udcff``) and leaves every other character, non-ASCII letters and spaces
included, as it is.
"""
from __future__ import annotations

__all__ = ["printable"]


def printable(text: object) -> str:
    """``str(text)`` with non-printable characters escaped; unchanged (one ``isprintable``) when it
    has none."""
    s = str(text)
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in s)


def fmt_bytes(n: int) -> str:
    """``4294967296`` -> ``"4 GiB"``; exact byte counts below 1 KiB."""
    for unit, size in (("PiB", 1024 ** 5), ("TiB", 1024 ** 4), ("GiB", 1024 ** 3), ("MiB", 1024 ** 2), ("KiB", 1024)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} bytes"
