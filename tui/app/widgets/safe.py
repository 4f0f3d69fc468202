"""Untrusted text as inert Textual content: never parsed as markup, control characters replaced.

`OneLine` and `cell` show one value as one printable line (`tui.core.text.untrusted.one_line`): a
newline in a server's address or a token's claim cannot draw a line of its own. `PlainStatic`
shows a block whose line breaks are ours, each of its lines composed from one-line values.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.widgets import Static

from tui.core.text.textwidth import cells, char_cells, wrap
from tui.core.text.untrusted import clean, one_line


def plain(text: object) -> Content:
    """Content for a block of text: markup is not parsed, control characters are replaced."""
    return Content(clean(text))


def has_wide(text: str) -> bool:
    return any(char_cells(char) == 2 for char in text)


def laid_out(text: str, width: int) -> str:
    """Lines wider than `width` cells broken by cell (`tui.core.text.textwidth.wrap`), under their own
    indent: Chinese breaks between characters, never inside a number and its unit; Textual alone
    breaks only at spaces, which Chinese has few of."""
    if width <= 0 or not has_wide(text):
        return text
    lines = []
    for line in text.split("\n"):
        if cells(line) <= width:
            lines.append(line)
            continue
        body = line.lstrip(" ")
        indent = line[: len(line) - len(body)]
        lines += [indent + part for part in wrap(body, max(width - len(indent), 4))]
    return "\n".join(lines)


class PlainStatic(Static):
    """A Static whose text is always plain: `set_text("…")` never interprets markup. Text with
    wide characters is broken by cell at the widget's width (laid out again on every resize):
    Textual alone breaks only at spaces, which Chinese has few of."""

    def __init__(self, text: object = "", **kwargs) -> None:
        self.plain_text = self.prepare(text)
        super().__init__(Content(self.plain_text), markup=False, **kwargs)

    def prepare(self, text: object) -> str:
        """The text as shown: control characters replaced (line breaks kept)."""
        return clean(text)

    def set_text(self, text: object) -> None:
        self.plain_text = self.prepare(text)
        self._draw()

    def _draw(self) -> None:
        text = self.plain_text
        if has_wide(text) and not self.has_class("fit"):
            text = laid_out(text, self.content_size.width)
        self.update(Content(text))

    def on_resize(self) -> None:
        if has_wide(self.plain_text):
            self._draw()


class OneLine(PlainStatic):
    """One value (an address, a host, a code, a status line, a title) as one printable line. It
    wraps where the screen is narrower than the line, as any text does (by cell, for Chinese);
    with the class `fit` it keeps to its row and ends in an ellipsis instead."""

    DEFAULT_CSS = """
    OneLine.fit { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, text: object = "", *, width: int = 4000, **kwargs) -> None:
        self.width = width  # characters kept; the widget wraps what does not fit the screen
        super().__init__(text, **kwargs)

    def prepare(self, text: object) -> str:
        return one_line(text, self.width)


def cell(text: object):
    """A table cell for untrusted text: one line, a Rich Text (inert, and measured for the
    column width)."""
    return Text(one_line(text), no_wrap=True, overflow="ellipsis")  # cut to its column: …
