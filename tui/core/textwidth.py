"""How many terminal cells a line takes: a CJK character (wide or full-width) two, a combining
mark none, anything else one. For lines a plain-text face fits to the terminal's width (the
wizard measures with Textual's own rules)."""

from __future__ import annotations

import unicodedata


def char_cells(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cells(text: str) -> int:
    """The width of `text` on a terminal, in cells."""
    return sum(char_cells(char) for char in text)


def cut(text: str, width: int) -> str:
    """The longest start of `text` that fits in `width` cells (a wide character is never halved)."""
    used = 0
    for index, char in enumerate(text):
        used += char_cells(char)
        if used > width:
            return text[:index]
    return text
