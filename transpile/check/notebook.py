"""Jupyter notebooks (``.ipynb``): their code cells checked and fixed as one module, as ruff does.

The code cells are joined into one *virtual module* (each followed by a boundary comment), so the
analysis sees names flow from cell to cell as the kernel does. IPython syntax is not Python:
line magics and shell escapes (``%timeit``, ``!pip``, ``x?``) become placeholder comments, and a
cell under a cell magic (``%%time``) is not Python at all and is left out. Findings are mapped
back to ``cell N`` (the cell's 1-based position in the notebook, markdown cells included, as a
reader counts them) and the row within it; fixes are applied to the virtual module and split back
into the cells at the boundaries, the placeholders restored, everything else in the notebook
(outputs, metadata, key order) kept.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Optional

from ..source import SourceError

BOUNDARY = "# hybridize-check: end of cell\n"
MAGIC = "# hybridize-check: IPython magic"
_MAGIC_LINE = re.compile(r"^\s*(?:[%!?]|[\w.]+\?\??\s*$)")


@dataclass
class Segment:
    cell: int           # 1-based position in the notebook
    first_row: int      # first row in the virtual module
    rows: int           # number of rows the cell occupies there
    magics: list[str] = field(default_factory=list)
    ends_with_newline: bool = True
    as_list: bool = True
    skipped: bool = False


@dataclass
class Notebook:
    document: dict
    segments: list[Segment]
    text: str

    def locate(self, row: int) -> tuple[Optional[int], int]:
        """(cell, row within the cell) of a virtual-module row."""
        for seg in self.segments:
            if seg.first_row <= row < seg.first_row + seg.rows:
                return seg.cell, row - seg.first_row + 1
        return None, row

    def with_text(self, text: str) -> bytes:
        """The notebook with its code cells replaced by the (fixed) virtual module ``text``."""
        pieces = text.split(BOUNDARY)
        if len(pieces) != len(self.segments) + 1 or pieces[-1].strip():
            raise SourceError("cannot write the notebook back: a fix crossed a cell boundary")
        cells = self.document["cells"]
        for seg, piece in zip(self.segments, pieces):
            if seg.skipped:
                continue
            lines = piece.splitlines(keepends=True)
            magics = iter(seg.magics)
            restored = []
            for line in lines:
                if line.strip() == MAGIC:
                    original = next(magics, None)
                    restored.append(original if original is not None else line)
                else:
                    restored.append(line)
            source = "".join(restored)
            if not seg.ends_with_newline and source.endswith("\n"):
                source = source[:-1]
            cells[seg.cell - 1]["source"] = source.splitlines(keepends=True) if seg.as_list else source
        return (json.dumps(self.document, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def _is_python(document: dict) -> bool:
    meta = document.get("metadata") or {}
    language = (meta.get("language_info") or {}).get("name") or (meta.get("kernelspec") or {}).get("language")
    return language is None or str(language).lower() == "python"


def load(data: bytes) -> Optional[Notebook]:
    """The notebook's virtual module; ``None`` for a notebook in another language.
    :class:`SourceError` (HY000) if the file is not a notebook."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise SourceError(f"not a Jupyter notebook: invalid JSON ({exc})") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise SourceError("not a Jupyter notebook: no list of cells")
    if not _is_python(document):
        return None
    segments: list[Segment] = []
    out: list[str] = []
    row = 1
    for number, cell in enumerate(document["cells"], start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        raw = cell.get("source", "")
        as_list = isinstance(raw, list)
        if as_list and not all(isinstance(part, str) for part in raw):
            raise SourceError(f"not a Jupyter notebook: cell {number} has a non-text source")
        if not isinstance(raw, (str, list)):
            raise SourceError(f"not a Jupyter notebook: cell {number} has a non-text source")
        source = "".join(raw) if as_list else raw
        seg = Segment(number, row, 0, ends_with_newline=source.endswith("\n") or not source, as_list=as_list)
        lines = source.splitlines(keepends=True)
        if lines and lines[0].lstrip().startswith("%%"):
            seg.skipped = True  # a cell magic: the cell is the magic's input, not Python
            lines = []
        virtual = []
        for line in lines:
            if _MAGIC_LINE.match(line):
                seg.magics.append(line)
                indent = line[: len(line) - len(line.lstrip())]
                virtual.append(f"{indent}{MAGIC}\n")
            else:
                virtual.append(line)
        if virtual and not virtual[-1].endswith(("\n", "\r")):
            virtual[-1] += "\n"
        seg.rows = len(virtual)
        out.extend(virtual)
        out.append(BOUNDARY)
        row += len(virtual) + 1
        segments.append(seg)
    return Notebook(document, segments, "".join(out))
