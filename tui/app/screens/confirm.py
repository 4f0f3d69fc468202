"""A yes/no question before anything is changed; the body is plain text (may be a diff)."""

from __future__ import annotations

import pathlib

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tui.app.screens.quit_key import QUIT_KEY, QuitKey
from tui.app.widgets.safe import OneLine, PlainStatic
from tui.core.text.i18n import _
from tui.core.text.phrase import N_
from tui.core.text.untrusted import clean


def keyed(label: str, key: str) -> str:
    """A button's label with its key, in the reader's brackets: `Discard (y)`, `丢弃（y）`."""
    return _("{label} ({key})").format(label=label, key=key)


class ConfirmScreen(ModalScreen[bool], QuitKey):
    CSS_PATH = str(pathlib.Path(__file__).with_name("confirm.tcss"))  # loaded when first opened
    BINDINGS = [
        Binding("y", "answer(True)", N_("Yes")),
        Binding("n,escape", "answer(False)", N_("No")),
        QUIT_KEY,  # said why it does not quit at once (the app's request_quit)
        # the body (a diff) scrolls with the keyboard while a button keeps the focus
        Binding("up,k", "scroll_body(-1)", N_("Scroll up"), show=False),
        Binding("down,j", "scroll_body(1)", N_("Scroll down"), show=False),
        Binding("pageup", "scroll_body(-8)", N_("Page up"), show=False),
        Binding("pagedown,space", "scroll_body(8)", N_("Page down"), show=False),
        Binding("home", "scroll_body(-100000)", N_("Top"), show=False),
        Binding("end", "scroll_body(100000)", N_("Bottom"), show=False),
    ]

    def __init__(
        self,
        title: str,
        body: str = "",
        yes: str | None = None,
        no: str | None = None,
        lexer: str | None = None,
        default_yes: bool = False,
        intro: str = "",
    ) -> None:
        super().__init__()
        self.intro = intro  # plain sentences above a diff, wrapped to the width (a diff line is not)
        self.default_yes = default_yes  # only where yes loses nothing (a session that is ending)
        self.lexer = lexer
        self.question = title
        self.body = body
        self.yes_label = _("Yes") if yes is None else yes
        self.no_label = _("Cancel") if no is None else no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield OneLine(self.question, id="confirm-title")
            note = PlainStatic("", id="confirm-note")  # why a key does nothing yet (Ctrl+C while asked)
            note.display = False
            yield note
            if self.intro:
                yield PlainStatic(self.intro, id="confirm-intro")
            if self.body:
                with VerticalScroll(id="confirm-body"):
                    if self.lexer:
                        from rich.syntax import Syntax  # lazy: heavy: rich

                        # Syntax never interprets markup; the text is cleaned of control characters
                        yield Static(Syntax(clean(self.body), self.lexer, theme="ansi_dark", word_wrap=False))
                    else:
                        yield PlainStatic(self.body)
            with Horizontal(id="confirm-buttons"):
                # the safe answer is both the filled button and the focused one (Enter takes it)
                yield Button(keyed(self.yes_label, "y"), id="yes", variant="primary" if self.default_yes else "default")
                yield Button(keyed(self.no_label, "n"), id="no", variant="default" if self.default_yes else "primary")
            if self.lexer:  # a diff, which can be long
                yield Static(_("↑↓ PgUp PgDn scroll · y / n answer · Tab moves between buttons"), id="confirm-keys")

    def say(self, text: str) -> None:
        """One line under the question, in place (a toast may sit under a dialog)."""
        note = self.query_one("#confirm-note", PlainStatic)
        note.set_text(text)
        note.display = True

    def on_mount(self) -> None:
        self.query_one("#yes" if self.default_yes else "#no", Button).focus()

    def action_scroll_body(self, lines: int) -> None:
        for body in self.query("#confirm-body"):
            body.scroll_relative(y=lines, animate=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
