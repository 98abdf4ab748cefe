"""Syntax colours for diff lines, from Pygments tokens. Lines are lexed in chunks the first time a chunk
is drawn, so a 10,000-line diff costs only what is on screen."""

from __future__ import annotations

import importlib
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.lexers._mapping import LEXERS
from pygments.lexers.special import TextLexer
from pygments.token import Comment, Keyword, Name, Number, Operator, String, Token, _TokenType
from PySide6.QtGui import QColor

from idea.domain.git.diff import Diff
from idea.domain.path_names import last_part

CHUNK_LINES = 64  # about one screen: the first screen lexes one or two chunks
Spans = tuple[tuple[int, int, QColor], ...]  # (start, length, colour) within one line

_DARK = {
    Keyword: "#c678dd",
    Name.Builtin: "#56b6c2",
    Name.Function: "#61afef",
    Name.Class: "#e5c07b",
    Name.Decorator: "#e5c07b",
    String: "#98c379",
    Number: "#d19a66",
    Comment: "#7f848e",
    Operator: "#56b6c2",
}
_LIGHT = {
    Keyword: "#8250df",
    Name.Builtin: "#0550ae",
    Name.Function: "#6639ba",
    Name.Class: "#953800",
    Name.Decorator: "#953800",
    String: "#0a3069",
    Number: "#0550ae",
    Comment: "#6e7781",
    Operator: "#cf222e",
}


@lru_cache(maxsize=256)
def lexer_for(path: str) -> Lexer:
    """The lexer of a file name, found by its suffix or exact name in Pygments' own table. (Pygments' search
    by file name matches every glob of every lexer and reads the installed plugins: 300 ms the first time,
    too long for a diff's first screen.)"""
    name = last_part(path)
    table = _lexer_table()
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    found = table.get(name) or table.get(suffix)
    if found is not None:
        module, class_name = found
        try:
            lexer_class = getattr(importlib.import_module(module), class_name)
            return lexer_class(stripnl=False, ensurenl=False)
        except Exception:  # noqa: BLE001  (a broken lexer module must not stop the diff from showing)
            pass
    return TextLexer(stripnl=False, ensurenl=False)


@lru_cache(maxsize=1)
def _lexer_table() -> dict[str, tuple[str, str]]:
    """Suffix (".py") or exact file name ("Makefile") → (module, lexer class), the first lexer listed wins."""
    table: dict[str, tuple[str, str]] = {}
    for class_name, (module, _name, _aliases, patterns, _mimes) in LEXERS.items():
        for pattern in patterns:
            if pattern.startswith("*.") and not any(ch in pattern[2:] for ch in "*?["):
                table.setdefault(pattern[1:].lower(), (module, class_name))
            elif not any(ch in pattern for ch in "*?["):
                table.setdefault(pattern, (module, class_name))
    return table


class Highlighter:
    def __init__(self, diff: Diff, dark: bool) -> None:
        self._diff = diff
        palette = _DARK if dark else _LIGHT
        self._colors = {kind: QColor(value) for kind, value in palette.items()}
        self._chunks: dict[tuple[int, int, int], list[Spans]] = {}
        self._by_type: dict[_TokenType, QColor | None] = {}

    def spans(self, file_index: int, hunk_index: int, line_index: int) -> Spans | None:
        """The line's colours, or None while its chunk is not lexed yet (see `lex`)."""
        chunk = line_index // CHUNK_LINES
        lines = self._chunks.get((file_index, hunk_index, chunk))
        return None if lines is None else lines[line_index - chunk * CHUNK_LINES]

    @staticmethod
    def chunk_of(file_index: int, hunk_index: int, line_index: int) -> tuple[int, int, int]:
        return file_index, hunk_index, line_index // CHUNK_LINES

    def lex(self, key: tuple[int, int, int]) -> None:
        file_index, hunk_index, _chunk = key
        known = file_index < len(self._diff.files) and hunk_index < len(self._diff.files[file_index].hunks)
        if known and key not in self._chunks:
            self._chunks[key] = self._lex(*key)

    def _lex(self, file_index: int, hunk_index: int, chunk: int) -> list[Spans]:
        file = self._diff.files[file_index]
        texts = [line.text for line in file.hunks[hunk_index].lines[chunk * CHUNK_LINES : (chunk + 1) * CHUNK_LINES]]
        lexer = lexer_for(file.path)
        result: list[list[tuple[int, int, QColor]]] = [[] for _ in texts]
        row, column = 0, 0
        for token, value in lexer.get_tokens("\n".join(texts)):
            color = self._color(token)
            for number, piece in enumerate(value.split("\n")):
                if number:
                    row, column = row + 1, 0
                if piece and color is not None and row < len(result):
                    result[row].append((column, len(piece), color))
                column += len(piece)
        return [tuple(spans) for spans in result]

    def _color(self, token: _TokenType) -> QColor | None:
        if token not in self._by_type:
            found = None
            kind: _TokenType | None = token
            while kind is not None and kind is not Token:
                if kind in self._colors:
                    found = self._colors[kind]
                    break
                kind = kind.parent
            self._by_type[token] = found
        return self._by_type[token]
