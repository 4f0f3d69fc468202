"""`assistant-auth agent --foreground` in a terminal: the agent runs on this app's event loop and
its view (`ForegroundAgentScreen`) is drawn live; Esc keeps it serving; `s`, Ctrl+C and Ctrl+Q stop
serving (asked first while connections are open), after what is in flight is finished. SIGTERM
and SIGHUP stop it the same way."""

from __future__ import annotations

import asyncio
import pathlib
import socket

from textual.app import App
from textual.binding import Binding

from tui.app.screens.agent import ForegroundAgentScreen
from tui.app.screens.ask import AskScreen
from tui.core.agent.feed import LocalFeed
from tui.core.agent.server.agent import Agent
from tui.core.agent.server.confirm import DENY, Connection
from tui.core.agent.wire.protocol import Request
from tui.core.signals import stop_agent_on_signals
from tui.core.text.phrase import N_


class AgentApp(App[int]):
    CSS_PATH = str(pathlib.Path(__file__).with_name("app.tcss"))
    TITLE = "assistant-auth"
    BINDINGS = [
        Binding("ctrl+q", "stop", N_("Quit"), priority=True),
        Binding("ctrl+c", "stop", N_("Quit"), show=False),
    ]

    def __init__(
        self,
        listener: socket.socket,
        path: str,
        lifetime: float | None,
        confirm: bool = False,
        shell_lines: list[str] | None = None,
        answer_key: str | None = None,
    ) -> None:
        super().__init__()
        self.shell_lines = shell_lines or []
        ask = self._ask if confirm else None
        self.agent = Agent(listener, path, lifetime=lifetime, on_event=self._on_event, ask=ask, answer_key=answer_key)
        self.view: ForegroundAgentScreen | None = None

    def on_mount(self) -> None:
        stop_agent_on_signals(self.agent.stop)
        self.view = ForegroundAgentScreen(LocalFeed(self.agent), in_process=True, shell_lines=self.shell_lines)
        self.push_screen(self.view)
        self.run_worker(self._serve(), group="agent", exit_on_error=False)

    async def _serve(self) -> None:
        try:
            await self.agent.run()
        finally:
            self.exit(0)

    def _on_event(self, _event: object) -> None:
        if self.view is not None and self.view.is_mounted:
            self.view.look()

    def action_stop(self) -> None:
        """Ctrl+Q, Ctrl+C: stop serving (asked first while connections are open)."""
        if self.view is not None and self.screen is self.view:
            self.view.action_stop_serving()
        else:
            self.agent.stop()

    async def _ask(self, connection: Connection, request: Request) -> str:
        """--confirm: the person's answer for one request (the agent bounds the wait; a dialog
        still open then is closed as denied)."""
        answered: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        wait = self.agent.confirm_wait
        dialog = AskScreen(
            connection.number, connection.origin, request.asked_for(), wait, request.op, connection.host, connection.via
        )

        chosen: list[str] = []

        def done(value: str | None) -> None:
            chosen.append(value or DENY)
            if not answered.done():
                answered.set_result(chosen[0])

        self.push_screen(dialog, done)
        try:
            return await answered
        finally:
            if not chosen and dialog.is_attached:  # the wait ran out: the question goes away as denied
                dialog.dismiss(DENY)
