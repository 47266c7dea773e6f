"""ANSI styling for text formats; a no-op unless colour was requested (tty and no NO_COLOR)."""
from __future__ import annotations


class Style:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def cyan(self, text: str) -> str:
        return self._wrap("36", text)

    def blue(self, text: str) -> str:
        return self._wrap("1;34", text)

    def red(self, text: str) -> str:
        return self._wrap("1;31", text)

    def yellow(self, text: str) -> str:
        return self._wrap("1;33", text)

    def code(self, code: str, severity: str) -> str:
        return self.red(code) if severity == "error" else self.yellow(code)
