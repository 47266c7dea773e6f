"""Reading and parsing source files: the one place that turns bytes into trees (and HY000).

Speed decides the shape of this module. The checker must handle a ~400-file tree in about a
second; libcst parses roughly ten times slower than CPython's own parser, computes positions
slower still, and even importing it costs more than checking a small project. So:

1. :func:`mentions_hybrid_forward` - a byte search; files without ``hybrid_forward`` are skipped
   unparsed (they cannot contain anything this tool checks).
2. :func:`decode_source` - PEP 263 encoding cookie and BOM, binary detection, size limit.
3. :func:`parse_python` - :mod:`ast` validates the whole file (a syntax error anywhere becomes
   HY000 with CPython's own message) and gives the tree the analysis runs on, positions included.
4. Only when a fix must be rendered (``--fix``, ``--diff``, JSON output) is the one function
   containing it parsed with libcst, by :func:`parse_function_snippet`: its line numbers map back
   to the file by a constant offset and columns are unchanged, so formatting and comments of the
   rewritten code are preserved exactly.

Errors are values: every problem raises :class:`SourceError` carrying a message and a 1-based
location, which the checker turns into an HY000 finding.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

#: Files larger than this are reported (HY000) rather than parsed: no hand-written module is
#: this big, and parsing a generated giant would stall a pre-commit hook.
MAX_FILE_BYTES = 16 * 1024 * 1024

_MARKER = b"hybrid_forward"
_NEWLINE = re.compile(r"\r\n|\r|\n")


class SourceError(Exception):
    """A file that cannot be read as Python source; reported as HY000 at ``row``:``column``."""

    def __init__(self, message: str, row: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.row = max(1, row)
        self.column = max(1, column)


def mentions_hybrid_forward(data: bytes) -> bool:
    """The pre-filter: only files containing the word are worth decoding and parsing."""
    return _MARKER in data


def decode_source(data: bytes) -> str:
    """Decode like the interpreter does (BOM, PEP 263 cookie, UTF-8 default).

    Raises :class:`SourceError` for binary content, undecodable bytes (with the line and column
    of the first bad byte) and unknown encodings.
    """
    if len(data) > MAX_FILE_BYTES:
        raise SourceError(f"file too large to check ({len(data)} bytes > {MAX_FILE_BYTES})")
    nul = data.find(b"\x00")
    if nul >= 0:
        row, col = _byte_position(data, nul)
        raise SourceError("binary file: contains a NUL byte, not Python source", row, col)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise SourceError(f"cannot determine the encoding: {exc.msg}", exc.lineno or 1) from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        row, col = _byte_position(data, exc.start)
        raise SourceError(
            f"cannot decode as {encoding}: byte 0x{data[exc.start]:02x} is invalid ({exc.reason})",
            row,
            col,
        ) from None
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based (row, column) of a byte offset; the column counts decodable characters before it."""
    head = data[:offset]
    row = len(_NEWLINE.findall(head.decode("latin-1"))) + 1
    line_start = max(head.rfind(b"\n"), head.rfind(b"\r")) + 1
    column = len(head[line_start:].decode("utf-8", errors="replace")) + 1
    return row, column


_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split only where Python splits (not on form feeds etc.)."""
    if not _OTHER_BREAKS.search(text):
        return text.splitlines(keepends=True)  # same result, much faster
    lines: list[str] = []
    pos = 0
    for match in _NEWLINE.finditer(text):
        lines.append(text[pos:match.end()])
        pos = match.end()
    if pos < len(text):
        lines.append(text[pos:])
    return lines


def parse_python(text: str) -> ast.Module:
    """Validate and index-parse a whole file with CPython's parser and compiler.

    Raises :class:`SourceError` for syntax errors (the compiler's too: symbol table and block
    errors), and for input the interpreter itself could not compile (expressions nested too
    deeply, null bytes).
    """
    try:
        tree = ast.parse(text, type_comments=False)
        # The parser alone accepts modules the compiler rejects (``global y`` after ``y = 1``,
        # ``return`` dedented out of its function by a form feed): the verdict must be CPython's.
        compile(tree, "<hybridize>", "exec", dont_inherit=True)
        return tree
    except SyntaxError as exc:
        row = exc.lineno or 1
        col = exc.offset or 1
        raise SourceError(f"syntax error: {exc.msg}", row, col) from None
    except (RecursionError, MemoryError):
        raise SourceError("cannot parse: expressions are nested too deeply for Python") from None
    except ValueError as exc:  # e.g. "source code string cannot contain null bytes"
        raise SourceError(f"cannot parse: {exc}") from None


_DANGLING_CONTINUATION = re.compile(r"\\(?:\r\n|\r|\n)?\Z")


def parse_module_cst(text: str) -> "cst.Module":
    """A whole module as a libcst tree, for rewriting; :class:`SourceError` where libcst cannot.

    CPython (3.11 and older) accepts a backslash continuation right before the end of the file;
    libcst's tokenizer does not. The continuation joins nothing, so it is dropped. Anything else
    libcst refuses in a module CPython accepted is reported at libcst's position, one line.
    """
    import libcst as cst

    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        trimmed = _DANGLING_CONTINUATION.sub("", text)
        if trimmed != text:
            try:
                return cst.parse_module(trimmed)
            except cst.ParserSyntaxError:
                pass
        first = str(exc.message).strip().splitlines()[0] if str(exc.message).strip() else "syntax error"
        raise SourceError(f"cannot rewrite: libcst cannot parse this module: {first}",
                          exc.raw_line, exc.raw_column + 1) from None


@dataclass(frozen=True)
class Snippet:
    """A libcst tree for one function of a file.

    ``function`` is the parsed ``FunctionDef``; its row ``r`` in the snippet is row
    ``r + line_offset`` in the file (columns are unchanged because indentation is kept).
    """

    module: "cst.Module"
    function: "cst.FunctionDef"
    line_offset: int


def parse_function_snippet(lines: list[str], first: int, last: int, indent: int) -> Snippet:
    """Parse file lines ``first..last`` (1-based, inclusive) holding one ``def`` with libcst.

    An indented method is wrapped in ``if 1:`` so its original indentation (and therefore every
    column) stays valid; a top-level function is parsed as is.
    """
    import libcst as cst  # lazily: only files that need analysis pay for importing libcst

    body = "".join(lines[first - 1:last])
    if not body.endswith(("\n", "\r")):
        body += "\n"
    prefix = "if 1:\n" if indent > 0 else ""
    try:
        module = cst.parse_module(prefix + body)
    except cst.ParserSyntaxError as exc:  # pragma: no cover - ast accepted the file already
        raise SourceError(f"libcst cannot parse: {exc.message}", first, 1) from None
    stmt = module.body[0]
    if indent > 0:
        assert isinstance(stmt, cst.If)
        stmt = stmt.body.body[0]  # type: ignore[union-attr]
    if not isinstance(stmt, cst.FunctionDef):  # pragma: no cover - guarded by the index
        raise SourceError("expected a function definition", first, 1)
    offset = first - 1 - (1 if prefix else 0)
    return Snippet(module=module, function=stmt, line_offset=offset)


def ast_depth(node: ast.AST, limit: int) -> Optional[int]:
    """Depth of the deepest node under ``node``, or ``None`` as soon as it exceeds ``limit``.

    Iterative so it cannot overflow; used to refuse pathological functions before libcst (whose
    parser is quadratic in the length of an operator chain) and the recursive analysis see them.
    """
    stack = [(node, 1)]
    deepest = 0
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return None
        deepest = max(deepest, depth)
        for child in ast.iter_child_nodes(current):
            stack.append((child, depth + 1))
    return deepest
