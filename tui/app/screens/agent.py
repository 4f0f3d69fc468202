"""The token agent, live: who serves, its slots, its connections (local or forwarded), its latest
requests (time, connection, slot, outcome: never a token), and a key to stop serving. Drawn from
a `Feed` (the agent in this process with `agent --foreground`, or one reached through its socket
from Home); the screen does no I/O of its own: a remote feed is asked from a worker thread."""

from __future__ import annotations

import pathlib

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static

from tui.app.screens.confirm import ConfirmScreen
from tui.app.widgets.footer import AppFooter
from tui.app.widgets.safe import PlainStatic
from tui.core.agent.client.ask import AgentUnavailable
from tui.core.agent.feed import Feed
from tui.core.agent.view import Snapshot, connection_lines, event_line, header, slot_lines
from tui.core.text.i18n import _, ngettext
from tui.core.text.phrase import N_, said

EVERY = 1.0  # seconds between looks


class AgentScreen(Screen[None]):
    CSS_PATH = str(pathlib.Path(__file__).with_name("agent.tcss"))
    BINDINGS = [
        Binding("escape", "back", N_("Back")),  # first: the footer keeps it at any width
        Binding("s", "stop_serving", N_("Stop serving")),
    ]

    def __init__(self, feed: Feed, *, in_process: bool, shell_lines: list[str] | None = None) -> None:
        super().__init__()
        self.feed = feed
        self.in_process = in_process  # the agent runs in this process (`agent --foreground` in a terminal)
        self.shell_lines = shell_lines or []  # what another shell evals to use it, shown here, not under the view
        self.problem: str | None = None
        self.open_connections = 0

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="agent-body"):
            yield PlainStatic("", id="agent-head")
            if self.shell_lines:
                yield Static(_("For another shell of yours (eval these lines)"), classes="agent-title")
                yield PlainStatic("\n".join(self.shell_lines), id="agent-shell")
            yield Static(_("Slots"), classes="agent-title")
            yield PlainStatic("", id="agent-slots")
            yield Static(_("Connections"), classes="agent-title")
            yield PlainStatic("", id="agent-connections")
            yield Static(_("Latest requests"), classes="agent-title")
            yield PlainStatic("", id="agent-events")
        yield AppFooter()

    def on_mount(self) -> None:
        self.sub_title = _("token agent")
        self.look()
        self.set_interval(EVERY, self.look)

    def look(self) -> None:
        if self.in_process:
            self.show(self.feed.snapshot())
        else:
            self.look_through_the_socket()

    @work(thread=True, exclusive=True, group="agent-look")
    def look_through_the_socket(self) -> None:
        try:
            snapshot = self.feed.snapshot()
        except AgentUnavailable as exc:
            self.app.call_from_thread(self.show_problem, said(exc.args[0]))
            return
        self.app.call_from_thread(self.show, snapshot)

    def show(self, snapshot: Snapshot) -> None:
        self.open_connections = len(snapshot.connections)
        self.query_one("#agent-head", PlainStatic).set_text(header(snapshot) + "\n" + snapshot.socket)
        self.query_one("#agent-slots", PlainStatic).set_text("\n".join(slot_lines(snapshot)))
        self.query_one("#agent-connections", PlainStatic).set_text("\n".join(connection_lines(snapshot)))
        lines = [event_line(event) for event in reversed(snapshot.events)]
        self.query_one("#agent-events", PlainStatic).set_text("\n".join(lines) or _("No request yet."))

    def show_problem(self, text: str) -> None:
        self.query_one("#agent-head", PlainStatic).set_text(text)

    def action_back(self) -> None:
        if self.in_process:  # the view is the agent: Esc never ends it by accident
            self.notify(_("The agent keeps serving: s stops it."))
        else:
            self.dismiss()

    def action_stop_serving(self) -> None:
        """Stop serving; while connections are open (a server's shell is using it), asked first."""
        if self.in_process:  # counted now, not at the last look
            self.open_connections = len(self.feed.snapshot().connections)
        if not (self.in_process and self.open_connections):
            self.stop_it()
            return

        def answered(stop: bool | None) -> None:
            if stop:
                self.stop_it()

        question = ngettext(
            "{n} connection is open: stop serving it?",
            "{n} connections are open: stop serving them?",
            self.open_connections,
        ).format(n=self.open_connections)
        self.app.push_screen(ConfirmScreen(question, yes=_("Stop serving"), no=_("Keep serving")), answered)

    @work(thread=True, exclusive=True, group="agent-stop")
    def stop_it(self) -> None:
        try:
            self.feed.stop()
        except AgentUnavailable as exc:
            self.app.call_from_thread(self.show_problem, said(exc.args[0]))
            return
        if not self.in_process:
            self.app.call_from_thread(self.notify, _("The token agent stopped serving."))
            self.app.call_from_thread(self.dismiss)


class ForegroundAgentScreen(AgentScreen):
    """The view that is the agent (`agent --foreground` in a terminal): Esc keeps it serving, so
    the footer offers no "Back" that would mislead; `s` (and Ctrl+Q) stop it."""

    BINDINGS = [
        Binding("escape", "back", N_("Back"), show=False),
        Binding("s", "stop_serving", N_("Stop serving")),
    ]
