"""A sign-in that did not succeed: expired, timed out, denied or failed, each said plainly."""

from __future__ import annotations

import pathlib

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Button, Header, Static

from tui.app.host import AppScreen
from tui.app.widgets.footer import AppFooter
from tui.app.widgets.safe import PlainStatic
from tui.core.errors import EXIT_SIGN_IN
from tui.core.signin.attempt import Outcome, SignIn
from tui.core.spec.regions import Region
from tui.core.text.i18n import _
from tui.core.text.phrase import N_

SUBTITLES = {  # the header's second part, per outcome
    "success": N_("success"),
    "expired": N_("expired"),
    "timeout": N_("timeout"),
    "access_denied": N_("access denied"),
    "error": N_("error"),
    "discarded": N_("discarded"),
}
CODE_RAN_OUT = N_("The code has expired meanwhile: Enter starts again with a new code.")


class OutcomeScreen(AppScreen[None]):
    CSS_PATH = str(pathlib.Path(__file__).with_name("outcome.tcss"))  # loaded when first opened
    BINDINGS = [
        Binding("escape", "back", N_("Back")),  # first: the footer keeps it at any width
        Binding("enter", "retry", N_("Start again")),
        Binding("k", "keep_polling", N_("Keep polling")),
        Binding("q", "app.request_quit", N_("Quit")),
    ]

    def __init__(self, region: Region, outcome: Outcome, attempt: SignIn | None = None) -> None:
        super().__init__()
        self.account_region = region
        self.outcome = outcome
        self.attempt = attempt  # the SignIn, when polling with the same code can go on
        self.kind = outcome.kind
        self.error = outcome.said or outcome.error
        self.code_watch: Timer | None = None  # while `k` is offered: whether the code has run out

    def compose(self) -> ComposeResult:
        title, explanation = self.outcome.title, self.outcome.text
        yield Header()
        with Vertical(id="outcome", classes=self.kind):
            yield Static(title, id="outcome-title")
            yield Static(explanation, id="outcome-text")
            if self.error:
                yield PlainStatic(self.error, id="outcome-error")
            if self.can_keep_polling:
                yield Static(
                    _("The code may already be approved in the browser: k keeps polling with the same code."),
                    id="outcome-keep",
                )
            with Horizontal(id="outcome-buttons"):
                if self.can_keep_polling:
                    yield Button(_("Keep polling"), id="keep", variant="primary")
                yield Button(_("Start again"), id="retry", variant="default" if self.can_keep_polling else "primary")
                yield Button(_("Back"), id="back")
        yield AppFooter()

    def on_mount(self) -> None:
        self.sub_title = _(SUBTITLES.get(self.kind, self.kind))
        self.query_one("#keep" if self.can_keep_polling else "#retry", Button).focus()
        if self.can_keep_polling:  # until the code runs out, not after: looked at every second, on its clock
            self.code_watch = self.set_interval(1.0, self._code_ran_out)

    def _code_ran_out(self) -> None:
        """The code's lifetime ended while this screen was shown: `k` is no longer offered, and the
        sentence that offered it says what is left (walked: `k` stayed and did nothing)."""
        if self.can_keep_polling:
            return
        if self.code_watch is not None:
            self.code_watch.stop()
        self.query_one("#keep", Button).remove()
        self.query_one("#outcome-keep", Static).update(_(CODE_RAN_OUT))
        self.query_one("#retry", Button).variant = "primary"
        self.query_one("#retry", Button).focus()
        self.refresh_bindings()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "keep":
            self.action_keep_polling()
        elif event.button.id == "retry":
            self.action_retry()
        else:
            self.action_back()

    @property
    def can_keep_polling(self) -> bool:
        return bool(self.attempt is not None and self.attempt.can_keep_polling)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.can_keep_polling if action == "keep_polling" else True

    def action_keep_polling(self) -> None:
        if self.attempt is not None and self.can_keep_polling:
            self.host.keep_polling(self.attempt)

    def _give_up(self) -> None:
        """Leaving without keeping polling ends the attempt: its record and lease go."""
        if self.attempt is not None:
            self.attempt.give_up()

    def action_retry(self) -> None:
        self._give_up()
        account = self.attempt.account if self.attempt is not None else None
        self.host.action_sign_in(self.account_region.value, replace=True, account=account)

    def action_back(self) -> None:
        self._give_up()
        self.host.back(EXIT_SIGN_IN)
