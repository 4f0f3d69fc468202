"""An agent's life: served until stopped (in the foreground, or as the background agent
`tui.core.agent.server.background` starts), or served in-process for one connection
(`assistant-auth ssh` with no agent in the shell). The command line only chooses which; the
serving, the signals and the socket's removal are here."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable

from tui.core.agent.server import place
from tui.core.agent.server.agent import Agent, Event
from tui.core.signals import stop_agent_on_signals


def serve(
    listener: socket.socket,
    path: str,
    lifetime: float | None,
    *,
    on_event: Callable[[Event], object] | None = None,
    answer_key: str | None = None,
    confirm: bool = False,
) -> None:
    """Serve until stopped (SIGTERM, SIGHUP, Ctrl+C, `--stop`, the lifetime's end); with
    `answer_key` (--confirm), ask a wizard on this machine before a new connection's first token.
    The socket this agent bound is removed when it ends."""
    agent = Agent(
        listener, path, lifetime=lifetime, on_event=on_event, answer_key=answer_key, confirm_in_wizard=confirm
    )

    async def main() -> None:
        stop_agent_on_signals(agent.stop)
        await agent.run()

    try:
        asyncio.run(main())
    finally:
        place.remove(path)


def proof_key(path: str) -> str | None:
    """The key beside the socket that lets a program on this machine prove it is here (where the
    system does not say who connects); None when it cannot be written (such programs are then
    strangers there: no `stop`, no paths)."""
    try:
        return place.write_answer_key(path)
    except OSError:
        return None


class InProcess:
    """An agent for one connection: served from a thread of this process (a private place of its
    own), stopped with it; a refresh in flight is stored before it ends."""

    def __init__(self, listener: socket.socket | None = None, path: str | None = None) -> None:
        if listener is None or path is None:
            listener, path = place.listen(private=True)  # its own place: never the stable one every shell finds
        self.path = path
        self.agent = Agent(listener, self.path, answer_key=proof_key(self.path))
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(started,), name="assistant-auth-agent", daemon=True)
        self.thread.start()
        started.wait(30)

    def _serve(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.agent.run(ready=started.set))
        finally:
            self.loop.close()

    def stop(self) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.agent.stop)
        self.thread.join(120)
        place.remove(self.path)
