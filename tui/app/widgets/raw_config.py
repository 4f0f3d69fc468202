"""The provider editor's view of config.toml as it is on disk: secrets masked (from the parsed
text), control characters made visible, TOML highlighted with line numbers; read-only."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.core.config.edit import mask_secrets
from tui.core.text.i18n import _
from tui.core.text.untrusted import clean


class RawConfig(VerticalScroll, can_focus=True):
    def compose(self) -> ComposeResult:
        yield Static(_("config.toml on disk, without unsaved edits · f2: form"), id="raw-caption", markup=False)
        yield Static("", id="raw-text")

    def show(self, text: str) -> None:
        from rich.syntax import Syntax  # lazy: the editor's raw view only, never at start

        shown = clean(mask_secrets(text))
        syntax = Syntax(shown, "toml", line_numbers=True, word_wrap=True, theme="ansi_dark")
        self.query_one("#raw-text", Static).update(syntax)
