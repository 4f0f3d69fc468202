"""`agent --confirm`: a connection asks for a token; the person allows it once, allows the
connection, or denies it. No answer within the agent's wait is deny, and the dialog closes by
itself. What is shown comes from the agent (the connection's number and origin, the slot asked
for): plain text."""

from __future__ import annotations

import pathlib
import time
from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button

from tui.app.screens.confirm import keyed
from tui.app.widgets.safe import OneLine, PlainStatic
from tui.core.agent.server.confirm import ALLOW_CONNECTION, ALLOW_ONCE, DENY
from tui.core.text.i18n import _
from tui.core.text.phrase import N_
from tui.core.text.untrusted import one_line

ASKED = {  # what a request names (the protocol's "region global"), said whole in each language
    "": N_("Connection #{number}, {where}, asks for a token of the default slot."),
    "region": N_("Connection #{number}, {where}, asks for a token of region {value}."),
    "slot": N_("Connection #{number}, {where}, asks for a token of slot {value}."),
    "provider": N_("Connection #{number}, {where}, asks for a token of provider {value}."),
    "account": N_("Connection #{number}, {where}, asks for a token of account {value}."),
}


OTHER_OPERATIONS = {  # what else a connection may ask for under --confirm, said whole
    "status": N_("Connection #{number}, {where}, asks to see each slot's state and who is signed in to it."),
    "events": N_("Connection #{number}, {where}, asks to see the agent's connections and latest requests."),
}
TITLES = {
    "token": N_("A connection asks for an access token"),
    "status": N_("A connection asks who is signed in"),
    "events": N_("A connection asks what the agent is doing"),
}


def asked_line(number: int, where: str, asked_for: str, op: str = "token") -> str:
    """The question's sentence: `op` what is asked (a token, the slots, the events) and, for a
    token, `asked_for` the request's selector as the agent says it ("region global", "" for the
    default slot); its value is shown as one plain line."""
    if op in OTHER_OPERATIONS:
        return _(OTHER_OPERATIONS[op]).format(number=number, where=where)
    kind, _space, value = asked_for.partition(" ")
    template = ASKED.get(kind, ASKED["slot"]) if asked_for else ASKED[""]
    return _(template).format(number=number, where=where, value=one_line(value, 120))


def where_from(origin: str, host: str, via: str = "ssh") -> str:
    """Where a request comes from, as the question says it: this machine, or a server through
    ssh (named when the ssh command line names it) or another program that relays (sshd's end of
    `ssh -L`, socat, nc: named as the system names it)."""
    if origin == "local":
        return _("from this machine")
    if origin == "forwarded" and via != "ssh":
        return _("relayed by {program} (treated as a server)").format(program=via)
    if origin == "forwarded":
        return _("from {host}, through ssh").format(host=host) if host else _("forwarded through ssh")
    return _("from a process this system cannot place (treated as a server)")


class AskScreen(ModalScreen[str]):
    CSS_PATH = str(pathlib.Path(__file__).with_name("confirm.tcss"))
    BINDINGS = [
        Binding("o", "answer('once')", N_("Allow once")),
        Binding("c", "answer('connection')", N_("Allow this connection")),
        Binding("d,escape", "answer('deny')", N_("Deny")),
    ]

    def __init__(
        self,
        number: int,
        origin: str,
        asked_for: str,
        wait: float,
        op: str = "token",
        host: str = "",
        via: str = "ssh",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.clock = clock  # the countdown's clock (fixed in the screenshot scenes)
        self.number, self.origin, self.asked_for = number, origin, one_line(asked_for, 300)
        self.host = one_line(host, 80)
        self.via = one_line(via, 40)
        self.op = op if op in TITLES else "token"
        self.deadline = clock() + wait

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield OneLine(_(TITLES[self.op]), id="confirm-title")
            where = where_from(self.origin, self.host, self.via)
            yield PlainStatic(asked_line(self.number, where, self.asked_for, self.op))
            yield PlainStatic("", id="ask-left")
            with Horizontal(id="confirm-buttons"):
                yield Button(keyed(_("Allow once"), "o"), id=ALLOW_ONCE)
                yield Button(keyed(_("Allow this connection"), "c"), id=ALLOW_CONNECTION)
                yield Button(keyed(_("Deny"), "d"), id=DENY, variant="primary")

    def on_mount(self) -> None:
        self.query_one(f"#{DENY}", Button).focus()  # the safe answer is the focused one
        self.tick()
        self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        left = max(int(self.deadline - self.clock() + 0.999), 0)
        self.query_one("#ask-left", PlainStatic).set_text(_("Denied by itself in {n} s.").format(n=left))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id or DENY)

    def action_answer(self, value: str) -> None:
        self.dismiss(value)
