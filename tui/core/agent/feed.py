"""Where a view of an agent gets its snapshots: the agent in this very process (`--foreground`),
or an agent reached through its socket (Home, on either machine). One interface, two sources;
the view never does I/O itself."""

from __future__ import annotations

from typing import Protocol

from tui.core.agent.client.ask import ask
from tui.core.agent.client.proof import read_answer_key
from tui.core.agent.server.agent import Agent
from tui.core.agent.server.status import slots
from tui.core.agent.view import Snapshot
from tui.core.agent.wire.protocol import Request


class Feed(Protocol):
    def snapshot(self) -> Snapshot: ...

    def stop(self) -> None: ...


class LocalFeed:
    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def snapshot(self) -> Snapshot:
        return Snapshot.parse(self.agent.snapshot(), slots())

    def stop(self) -> None:
        self.agent.stop()


class RemoteFeed:
    """Blocking: call it from a worker thread. AgentUnavailable when the agent does not answer."""

    def __init__(self, path: str) -> None:
        self.path = path

    def snapshot(self) -> Snapshot:
        key = read_answer_key(self.path)  # on the agent's machine: the view is the person's own, never asked about
        events = ask(Request("events", key=key), self.path, timeout=10)
        status = ask(Request("status", key=key), self.path, timeout=10)
        return Snapshot.parse(events, status)

    def stop(self) -> None:
        ask(Request("stop", key=read_answer_key(self.path)), self.path, timeout=30)
