"""A sign-in that did not succeed: expired, timed out, denied or failed, each said plainly."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Static

from tui.core.regions import Region
from tui.widgets.safe import PlainStatic

OUTCOMES = {
    "expired": ("The code expired", "The code was not approved in time. Start again for a new code."),
    "timeout": ("Gave up waiting", "No approval within 15 minutes. Start again for a new code."),
    "access_denied": ("Access denied", "The request was denied in the browser. Try again if that was a mistake."),
    "error": ("Sign-in failed", "The sign-in stopped with this error:"),
}


class OutcomeScreen(Screen):
    BINDINGS = [
        Binding("enter", "retry", "Start again"),
        Binding("escape", "back", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, region: Region, kind: str, error: str | None = None) -> None:
        super().__init__()
        self.account_region = region
        self.kind = kind if kind in OUTCOMES else "error"
        self.error = error

    def compose(self) -> ComposeResult:
        title, explanation = OUTCOMES[self.kind]
        yield Header()
        with Vertical(id="outcome", classes=self.kind):
            yield Static(title, id="outcome-title")
            yield Static(explanation, id="outcome-text")
            if self.error:
                yield PlainStatic(self.error, id="outcome-error")
            with Horizontal(id="outcome-buttons"):
                yield Button("Start again", id="retry", variant="primary")
                yield Button("Back", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.kind.replace("_", " ")
        self.query_one("#retry", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "retry":
            self.action_retry()
        else:
            self.action_back()

    def action_retry(self) -> None:
        from tui.screens.sign_in import SignInScreen

        self.app.switch_screen(SignInScreen(self.account_region))

    def action_back(self) -> None:
        self.app.pop_screen()
