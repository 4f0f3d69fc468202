"""Untrusted text as inert Textual content: never parsed as markup, control characters removed."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.widgets import Static

from tui.terminal.text import clean


def plain(text: object) -> Content:
    """Content for a string from a server or a file: markup is not parsed, escapes are stripped."""
    return Content(clean(text))


class PlainStatic(Static):
    """A Static whose text is always plain: `update("…")` never interprets markup."""

    def __init__(self, text: object = "", **kwargs) -> None:
        super().__init__(plain(text), markup=False, **kwargs)

    def set_text(self, text: object) -> None:
        self.update(plain(text))


def cell(text: object):
    """A table cell for untrusted text: a Rich Text (inert, and measured for the column width)."""
    return Text(clean(text), no_wrap=True)
