"""Signing in to a region that already has an account: add another account (with a name of its
own) or sign in to this one again. The name is parsed here, at the door, by the core's rule; the
screen returns the choice and changes nothing itself."""

from __future__ import annotations

import pathlib

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input

from tui.app.screens.confirm import keyed
from tui.app.screens.quit_key import QUIT_KEY, QuitKey
from tui.app.widgets.safe import OneLine, PlainStatic
from tui.app.widgets.text_field import TextField
from tui.core.slots.accounts import name_problem
from tui.core.text.i18n import _
from tui.core.text.phrase import N_

AGAIN, ADD = "again", "add"


class AccountChoiceScreen(ModalScreen[tuple[str, str | None] | None], QuitKey):
    """(AGAIN, None), (ADD, name) or None (nothing: Esc, n)."""

    CSS_PATH = str(pathlib.Path(__file__).with_name("confirm.tcss"))
    # No letter starts a sign-in here: the name field has the focus, and a letter typed is a letter of
    # the name. The buttons (Tab, Enter) and Esc choose.
    BINDINGS = [Binding("escape", "cancel", N_("Cancel")), QUIT_KEY]

    def __init__(
        self, title: str, state: str, taken: set[str], again: str | None = None, explain: str | None = None
    ) -> None:
        super().__init__()
        self.again_label = again or _("Sign in again")  # the region's own slot with no sign-in: a first one
        self.explain = explain or _(
            "Another account gets a credential slot of its own and becomes the active one; "
            "signing in again replaces this one's tokens, for the official client too."
        )
        self.question = title
        self.state = state  # who is signed in there now, as Home says it
        self.taken = taken  # the region's account names already on disk: adding one of them is signing in again

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield OneLine(self.question, id="confirm-title")
            yield PlainStatic(_("{state}.\n{explain}").format(state=self.state, explain=self.explain))
            yield TextField(placeholder=_("name of another account: work, personal, team-2"), id="account-name")
            yield PlainStatic("", id="account-problem")
            with Horizontal(id="confirm-buttons"):
                yield Button(_("Add another account"), id="add", variant="primary")
                yield Button(self.again_label, id="again")
                yield Button(keyed(_("Cancel"), "Esc"), id="no")

    def on_mount(self) -> None:
        self.query_one("#account-name", Input).focus()  # a field shown for typing has the focus

    def action_add(self) -> None:
        field = self.query_one("#account-name", Input)
        if not field.value:
            field.focus()  # the name first; Enter adds
            return
        self._add(field.value)

    def _add(self, name: str) -> None:
        problem = name_problem(name)
        if problem is None and name in self.taken:
            problem = _("{name} is signed in already: choose it on Home to sign in to it again").format(name=name)
        if problem is not None:
            self.query_one("#account-problem", PlainStatic).set_text(problem)
            return
        self.dismiss((ADD, name))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._add(event.value)

    def action_again(self) -> None:
        self.dismiss((AGAIN, None))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        {"add": self.action_add, "again": self.action_again}.get(event.button.id or "", self.action_cancel)()
