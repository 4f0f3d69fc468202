"""A sign-in that did not succeed: expired, timed out, denied or failed, each said plainly."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Static

from tui.core.regions import Region
from tui.core.signin import Outcome
from tui.app.widgets.safe import PlainStatic

class OutcomeScreen(Screen):
    BINDINGS = [
        Binding("enter", "retry", "Start again"),
        Binding("escape", "back", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, region: Region, outcome: Outcome) -> None:
        super().__init__()
        self.account_region = region
        self.outcome = outcome
        self.kind = outcome.kind
        self.error = outcome.error

    def compose(self) -> ComposeResult:
        title, explanation = self.outcome.title, self.outcome.text
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
        self.app.action_sign_in(self.account_region.value, replace=True)

    def action_back(self) -> None:
        self.app.pop_screen()
