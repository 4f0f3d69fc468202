"""The agent's live view: in the foreground (the agent on the app's own event loop) and from Home
(an agent reached through its socket). Requests appear as they happen, never a token; `s` stops
serving; Home says where the tokens come from and `a` opens the view."""

from __future__ import annotations

import asyncio
import os

from tests.agent.conftest import RunningAgent
from tests.app.helpers import screen_name, screen_text, wait_for
from tests.cli.test_cli import valid
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.app.agent_app import AgentApp
from tui.core.agent import place
from tui.core.agent.client import ask
from tui.core.agent.protocol import Request


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


async def test_home_says_where_tokens_come_from_and_opens_the_view(laptop, server, monkeypatch):
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
