"""Help: every key of the screen it was opened from, with what it does."""

from __future__ import annotations

import pathlib

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from tui.app.screens.quit_key import QUIT_KEY, QuitKey
from tui.app.widgets.safe import OneLine, PlainStatic
from tui.core.text.i18n import _
from tui.core.text.phrase import N_

GLOBAL_KEYS = [
    ("↑ ↓ pgup pgdn", N_("Move in lists, tables and long text")),
    ("tab / shift+tab", N_("Next / previous field or button")),
    ("ctrl+p", N_("Command palette: every action by name")),
]
LISTED_BELOW = {"focus_next", "focus_previous", "copy_text", "help", "command_palette"}


def binding_rows(screen: Screen) -> list[tuple[str, str]]:
    """(keys, description) for each action of `screen` and the app, in the footer's order (a
    focused widget's own keys only when it shows them); keys of one action are joined."""
    rows: dict[str, tuple[list[str], str]] = {}
    for active in screen.active_bindings.values():
        binding = active.binding
        if not binding.description or binding.system:
            continue
        if active.node is not screen and active.node is not screen.app and not binding.show:
            continue  # cursor keys of a table or list: summed up in one line below
        if binding.action.rpartition(".")[2] in LISTED_BELOW:
            continue
        if active.node is screen and screen.check_action(binding.action, ()) is False:
            continue  # not offered here now (no waiting sign-in, no token agent): not a key of this screen
        keys, _ = rows.setdefault(binding.action.rpartition(".")[2], ([], binding.description))
        shown = screen.app.get_key_display(binding)
        if shown not in keys:
            keys.append(shown)
    listed = [(" / ".join(keys), description) for keys, description in rows.values()]
    return [(keys, N_("Quit (asks first while a sign-in runs)") if d == "Quit" else d) for keys, d in listed] + [
        ("? / f1", N_("This help"))
    ]


class HelpScreen(ModalScreen[None], QuitKey):
    CSS_PATH = str(pathlib.Path(__file__).with_name("help.tcss"))  # loaded when first opened
    BINDINGS = [Binding("escape,question_mark,f1,q", "dismiss_help", N_("Close")), QUIT_KEY]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.rows = binding_rows(screen) + GLOBAL_KEYS
        self.topic = (screen.sub_title or _("this screen")).split(" · ")[0]

    def compose(self) -> ComposeResult:
        width = max(len(keys) for keys, _ in self.rows)
        text = "\n".join(f"{keys:>{width}}  {_(description)}" for keys, description in self.rows)
        with Vertical(id="help"):
            yield OneLine(_("Keys on {screen}").format(screen=self.topic), id="help-title")
            with VerticalScroll(id="help-body"):
                yield PlainStatic(text)
            yield Static(_("esc closes this help"), id="help-close")

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()  # ↑ ↓ pgup pgdn scroll what does not fit

    def action_dismiss_help(self) -> None:
        self.dismiss(None)
