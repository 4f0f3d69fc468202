"""The wizard stores tokens approved earlier and kept when they could not be stored (#56 7):
Enter on the region saves them, no code is asked for."""

from __future__ import annotations

from tests.app.helpers import screen_text, wait_for
from tests.conftest import read_json
from tui.app import AssistantAuthApp
from tui.core.signin import kept
from tui.demo.server import DEVICE_PATH

SLOT = "assistant-code"


async def test_the_wizard_saves_kept_tokens_on_enter_without_a_code(home, server, monkeypatch, tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    tokens = {**server.issue_tokens(), "expires_in": 3600}
    assert kept.keep(tokens, SLOT) is not None
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "Choose the region" in screen_text(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Signed in" in screen_text(app) and "user-1" in screen_text(app))
    assert server.count(DEVICE_PATH) == 0
    assert read_json(home / "credentials" / f"{SLOT}.json")["access_token"] == tokens["access_token"]
    assert kept.kept(SLOT) is None
