"""The agent's live view: in the foreground (the agent on the app's own event loop) and from Home
(an agent reached through its socket). Requests appear as they happen, never a token; `s` stops
serving; Home says where the tokens come from and `a` opens the view."""

from __future__ import annotations

import asyncio
import os

from tests.agent.conftest import RunningAgent
from tests.app.helpers import screen_name, screen_text, toasts, wait_for
from tests.cli.test_cli import valid
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.app.agent_app import AgentApp
from tui.core.agent.client.ask import ask
from tui.core.agent.server import place
from tui.core.agent.wire.protocol import Request


async def test_the_foreground_view_shows_each_request_and_s_stops_serving(laptop, server):
    write_creds(laptop, valid(server))
    listener, path = place.listen()
    app = AgentApp(listener, path, None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "Token agent, pid" in screen_text(app))
        assert "No request yet." in screen_text(app) and "cn: usable" in screen_text(app)
        answer = await asyncio.to_thread(ask, Request("token"), path)
        await wait_for(pilot, lambda: "request token assistant-code served" in screen_text(app))
        assert "local" in screen_text(app)
        assert answer["access_token"] not in screen_text(app)
        assert all(pair[0] not in screen_text(app) and pair[1] not in screen_text(app) for pair in server.issued)
        await pilot.press("s")
        await wait_for(pilot, lambda: not os.path.exists(path))
    assert not os.path.exists(os.path.dirname(path))


async def test_home_says_where_tokens_come_from_and_opens_the_view(system, laptop, server, monkeypatch):
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy())
    try:
        monkeypatch.setenv("ASSISTANT_AUTH_SOCK", agent.path)
        app = AssistantAuthApp()
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "A token agent (pid" in screen_text(app))
            await pilot.press("a")
            await wait_for(pilot, lambda: screen_name(app) == "AgentScreen")
            await wait_for(pilot, lambda: f"Token agent, pid {agent.pid}" in screen_text(app))
            await wait_for(pilot, lambda: "request status" in screen_text(app))  # Home's own question, seen
            await pilot.press("escape")
            await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
            assert agent.process.poll() is None  # leaving the view of another process's agent stops nothing
    finally:
        agent.stop()


async def test_home_without_an_agent_offers_no_agent_key(home):
    app = AssistantAuthApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        assert "Token agent" not in screen_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert screen_name(app) == "HomeScreen"


async def test_confirm_asks_before_a_connections_first_token(laptop, server):
    """allow this connection (c): its next request is not asked again; a new connection is asked
    again; deny (d) refuses it; no answer within the wait is deny, and the question goes away."""
    import socket as sockets

    from tui.core.agent.wire.protocol import Request as Asked

    write_creds(laptop, valid(server))
    listener, path = place.listen()
    app = AgentApp(listener, path, None, confirm=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "Token agent, pid" in screen_text(app))
        conn = sockets.socket(sockets.AF_UNIX)
        conn.connect(path)
        reader = conn.makefile("rb")

        def one_request() -> dict:
            conn.sendall(Asked("token").to_line())
            import json

            while True:  # the answer, after any `working` lines (sent every 2 s while the person decides)
                line = json.loads(reader.readline())
                if "working" not in line:
                    return line

        first = asyncio.ensure_future(asyncio.to_thread(one_request))
        await wait_for(pilot, lambda: screen_name(app) == "AskScreen")
        assert "of the default" in screen_text(app) and "Denied by itself in" in screen_text(app)
        await pilot.press("c")
        assert (await first)["ok"] is True
        assert (await asyncio.to_thread(one_request))["ok"] is True  # the connection is allowed now
        assert screen_name(app) == "ForegroundAgentScreen"
        reader.close()  # the file object holds the socket open too
        conn.close()
        second = asyncio.ensure_future(asyncio.to_thread(ask, Asked("token"), path))
        await wait_for(pilot, lambda: screen_name(app) == "AskScreen")
        await pilot.press("d")
        denied = await second
        assert denied["ok"] is False and denied["exit"] == 1 and "denied at your own machine" in denied["error"]
        app.agent.confirm_wait = 0.5
        third = asyncio.ensure_future(asyncio.to_thread(ask, Asked("token"), path))
        await wait_for(pilot, lambda: screen_name(app) == "AskScreen")
        assert (await third)["ok"] is False  # nobody answered: denied
        await wait_for(pilot, lambda: screen_name(app) == "ForegroundAgentScreen")  # and the question went away
        await wait_for(pilot, lambda: "denied" in screen_text(app))
        await pilot.press("s")
        await wait_for(pilot, lambda: not os.path.exists(path))


async def test_the_foreground_view_keeps_serving_on_esc_asks_before_stopping_open_connections_and_shows_the_lines(
    laptop, server
):
    """#43, item 11: Esc does not end the agent; `s` (and Ctrl+Q) ask while a connection is open;
    the shell lines to eval are in the view."""
    import socket as sockets

    write_creds(laptop, valid(server))
    listener, path = place.listen()
    lines = [f"ASSISTANT_AUTH_SOCK={path}; export ASSISTANT_AUTH_SOCK;", "echo Agent pid 1;"]
    app = AgentApp(listener, path, None, shell_lines=lines)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "Token agent, pid" in screen_text(app))
        assert f"ASSISTANT_AUTH_SOCK={path}; export" in screen_text(app).replace("\n", "")
        await pilot.press("escape")
        await wait_for(pilot, lambda: any("s stops it" in m for m in toasts(app)))
        assert os.path.exists(path) and screen_name(app) == "ForegroundAgentScreen"
        held = sockets.socket(sockets.AF_UNIX)
        held.connect(path)  # a server's shell, connected
        await wait_for(pilot, lambda: len(app.agent.connections) == 1)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "1 connection is open" in screen_text(app)
        await pilot.press("n")  # keep serving
        await wait_for(pilot, lambda: screen_name(app) == "ForegroundAgentScreen")
        assert os.path.exists(path)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: not os.path.exists(path))
        held.close()
