"""How messages count things ("1 file", "3 files", never "file(s)"; "12,480 lines") and begin their sentences."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` and the noun in the number it takes: `plural` when the noun does not just take an "s". Thousands
    are grouped ("12,480 lines")."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def capitalized(text: str) -> str:
    """`text` with its first letter made upper case, the rest as it is ("idea_reply …" stays as typed)."""
    return text[:1].upper() + text[1:]
