"""Ctrl+C on a modal screen (a question, the QR code, help): a modal screen cuts the app's own
bindings, so each says the app's quit itself. Where a question is open, the app says why it does
not quit at once (`AssistantAuthApp.action_request_quit`)."""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import Screen

from tui.core.text.phrase import N_

QUIT_KEY = Binding("ctrl+c", "quit_key", N_("Quit"), show=False)  # listed by help, not in the footer


class QuitKey(Screen):  # a mixin over each modal screen (its own result type)
    def action_quit_key(self) -> None:
        ask = getattr(self.app, "action_request_quit", None) or getattr(self.app, "action_stop", None)
        if callable(ask):
            ask()
