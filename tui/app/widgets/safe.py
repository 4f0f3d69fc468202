"""Untrusted text as inert Textual content: never parsed as markup, control characters replaced.

`OneLine` and `cell` show one value as one printable line (`tui.core.untrusted.one_line`): a
newline in a server's address or a token's claim cannot draw a line of its own. `PlainStatic`
shows a block whose line breaks are ours, each of its lines composed from one-line values.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.widgets import Static

from tui.core.untrusted import clean, one_line


def plain(text: object) -> Content:
    """Content for a block of text: markup is not parsed, control characters are replaced."""
    return Content(clean(text))


class PlainStatic(Static):
    """A Static whose text is always plain: `update("…")` never interprets markup."""

    def __init__(self, text: object = "", **kwargs) -> None:
        super().__init__(self.shown(text), markup=False, **kwargs)

    def shown(self, text: object) -> Content:
        return plain(text)

    def set_text(self, text: object) -> None:
        self.update(self.shown(text))


class OneLine(PlainStatic):
    """One value (an address, a host, a code, a status line, a title) as one printable line. It
    wraps where the screen is narrower than the line, as any text does; with the class `fit` it
    keeps to its row and ends in an ellipsis instead."""

    DEFAULT_CSS = """
    OneLine.fit { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, text: object = "", *, width: int = 4000, **kwargs) -> None:
        self.width = width  # characters kept; the widget wraps what does not fit the screen
        super().__init__(text, **kwargs)

    def shown(self, text: object) -> Content:
        return Content(one_line(text, self.width))


def cell(text: object):
    """A table cell for untrusted text: one line, a Rich Text (inert, and measured for the
    column width)."""
    return Text(one_line(text), no_wrap=True)
