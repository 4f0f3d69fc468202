"""The QR code on a screen of its own, for a terminal too small to show it beside the code."""

from __future__ import annotations

import pathlib

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen

from tui.app.screens.quit_key import QUIT_KEY, QuitKey
from tui.app.widgets.qr import QRCode
from tui.app.widgets.safe import OneLine
from tui.core.text.i18n import _
from tui.core.text.phrase import N_


class QRScreen(ModalScreen[None], QuitKey):
    """The QR code alone, for a terminal too small to show it beside the code: the address it
    encodes has the code filled in. The sign-in goes on underneath; r or Esc brings it back."""

    CSS_PATH = str(pathlib.Path(__file__).with_name("sign_in.tcss"))  # loaded when first opened

    BINDINGS = [
        Binding("escape,r", "close", N_("Back to the code")),
        Binding("question_mark", "help", N_("Help"), show=False),  # the app's own `?` is cut here
        QUIT_KEY,
    ]

    def on_mount(self) -> None:
        self.sub_title = _("QR code")  # what help calls this screen

    def action_help(self) -> None:
        help_ = getattr(self.app, "action_help", None)
        if callable(help_):
            help_()

    def __init__(self, data: str) -> None:
        super().__init__()
        self.data = data

    def compose(self) -> ComposeResult:
        with Vertical(id="qr-alone"):
            yield QRCode(self.data, id="qr")
            yield OneLine(_("Scan it · r or esc: back"), id="qr-caption", classes="fit")

    def action_close(self) -> None:
        self.dismiss(None)
