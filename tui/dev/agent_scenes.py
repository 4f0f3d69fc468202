"""The token agent's screens as fixed scenes (`tui.dev.scenes`): the foreground view of an agent
serving a laptop and two forwarded connections, and `--confirm`'s question over it. A fixed feed
(no socket, no pid of this run) so the picture changes only when the screen does."""

from __future__ import annotations

import pathlib
import time
from typing import Any

from textual.app import App

from tui.app.screens.agent import ForegroundAgentScreen
from tui.app.screens.ask import AskScreen
from tui.core.agent.view import Snapshot

SOCKET = "/run/user/1000/assistant-auth/agent.sock"
PID = 4712


def snapshot(now: float) -> Snapshot:
    events = [
        {"at": now - 310, "connection": 1, "kind": "connected", "origin": "forwarded"},
        {
            "at": now - 309,
            "connection": 1,
            "kind": "request",
            "origin": "forwarded",
            "op": "token",
            "slot": "assistant-code",
            "outcome": "served",
        },
        {"at": now - 120, "connection": 2, "kind": "connected", "origin": "forwarded"},
        {
            "at": now - 119,
            "connection": 2,
            "kind": "request",
            "origin": "forwarded",
            "op": "token",
            "slot": "assistant-code",
            "outcome": "served",
        },
        {"at": now - 30, "connection": 3, "kind": "request", "origin": "local", "op": "status", "outcome": "served"},
    ]
    return Snapshot(
        socket=SOCKET,
        pid=PID,
        started=now - 3600,
        lifetime=None,
        connections=[
            {"number": 1, "origin": "forwarded", "opened": now - 310, "requests": 4},
            {"number": 2, "origin": "forwarded", "opened": now - 120, "requests": 1},
        ],
        events=events,
        slots=[{"name": "assistant-code", "region": "cn", "usable": True, "identity": "ada@example.com"}],
    )


class FixedFeed:
    def __init__(self, now: float) -> None:
        self.now = now

    def snapshot(self) -> Snapshot:
        return snapshot(self.now)

    def stop(self) -> None:  # a picture: nothing to stop
        return None


class Closed:
    async def aclose(self) -> None:  # what `make screenshots` closes after a scene
        return None


class AgentSceneApp(App[None]):
    CSS_PATH = str(pathlib.Path(__file__).resolve().parents[1] / "app" / "app.tcss")
    TITLE = "assistant-auth"

    def __init__(self, now: float) -> None:
        super().__init__()
        self.now = now
        self.http_client: Any = Closed()

    def on_mount(self) -> None:
        lines = [
            f"ASSISTANT_AUTH_SOCK={SOCKET}; export ASSISTANT_AUTH_SOCK;",
            f"ASSISTANT_AUTH_AGENT_PID={PID}; export ASSISTANT_AUTH_AGENT_PID;",
            f"echo Agent pid {PID};",
        ]
        self.push_screen(ForegroundAgentScreen(FixedFeed(self.now), in_process=True, shell_lines=lines))


async def ask_over_it(pilot) -> None:
    """`--confirm`: connection #2, from build-server through ssh, asks for a token of region cn."""
    pilot.app.push_screen(AskScreen(2, "forwarded", "region cn", 30.0, "token", "build-server", clock=lambda: 0.0))
    deadline = time.monotonic() + 60  # the exact state drawn: the dialog mounted, its countdown said
    while not _countdown_drawn(pilot.app.screen):
        if time.monotonic() > deadline:
            raise RuntimeError("the question was not drawn")
        await pilot.pause(0.05)
    await pilot.pause()


def _countdown_drawn(screen: object) -> bool:
    if not isinstance(screen, AskScreen):
        return False
    return any("30" in str(widget.render()) for widget in screen.query("#ask-left"))
