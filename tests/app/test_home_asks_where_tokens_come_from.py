"""#59 2: Home asks the one predicate (`source.signs_in_here`, through `presence.may_sign_in_here`)
before a sign-in, as `login` does on the command line: where this machine's tokens come from the
token agent on the person's own machine (or should, and it does not answer), Enter asks first, and
a sign-in here happens only when the person says so. With no agent pointed at, or with a sign-in
of this machine's own for the row, Home goes its usual way. The agent's socket is a real path
where nothing listens (the agent gone), so the worker's look is the real one."""

from __future__ import annotations

import time

from tests.app.helpers import screen_name, screen_text, wait_for
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.core.agent.served import Source
from tui.demo.server import DEVICE_PATH

SIZE = (100, 30)


async def test_enter_on_a_machine_served_elsewhere_asks_before_signing_in_here(server, home, tmp_path, monkeypatch):
    monkeypatch.setenv("ASSISTANT_AUTH_SOCK", str(tmp_path / "gone.sock"))
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.screen.agent_found is not None)  # the worker's look ended
        assert app.screen.agent_found.where is Source.UNREACHABLE
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Sign in on this machine anyway?" in screen_text(app))
        said = " ".join(screen_text(app).split())
        assert screen_name(app) == "ConfirmScreen" and "the token agent on your own" in said
        await pilot.press("n")  # keep using the agent: nothing is asked of the server
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        assert server.count(DEVICE_PATH) == 0
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("y")  # the person's choice: a sign-in here
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")
        await wait_for(pilot, lambda: server.count(DEVICE_PATH) == 1)


async def test_enter_before_the_look_ended_asks_too(server, home, tmp_path, monkeypatch):
    """No answer yet counts as none (asked, never assumed): the question does not wait for the
    worker."""
    monkeypatch.setenv("ASSISTANT_AUTH_SOCK", str(tmp_path / "gone.sock"))
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        app.screen.agent_found = None  # as on the first frame, whatever the worker did meanwhile
        app.screen.look_at_the_agent = lambda: None  # type: ignore[method-assign]  # it never answers
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
    assert server.count(DEVICE_PATH) == 0


async def test_a_sign_in_of_this_machines_own_is_not_questioned(server, home, tmp_path, monkeypatch):
    """This machine holds the row's sign-in (a refresh token): it signs in and refreshes its own,
    so Home asks only what it always asks (add another account, or sign in again?)."""
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    monkeypatch.setenv("ASSISTANT_AUTH_SOCK", str(tmp_path / "gone.sock"))
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.screen.agent_found is not None)
        assert app.screen.agent_found.where is Source.FILES  # its own sign-in serves, said
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "AccountChoiceScreen")  # what Home always asks
        await wait_for(pilot, lambda: "add another, or sign in again?" in screen_text(app))
        assert "anyway" not in screen_text(app)
