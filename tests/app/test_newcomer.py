"""A newcomer's first ten minutes in the app, at 80×24 and 60×18: placeholder hosts said before
Enter, Help/Quit/Back in every footer, a help screen that scrolls, broken states that say what to do."""

from __future__ import annotations

import pytest

from tests.app.helpers import screen_name, screen_text, wait_for
from tui.app import AssistantAuthApp

SIZES = [(80, 24), (60, 18)]


@pytest.mark.parametrize("size", SIZES)
async def test_home_marks_a_placeholder_host_before_enter(home, monkeypatch, size):
    monkeypatch.delenv("ASSISTANT_OAUTH_HOST_GLOBAL")
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        text = screen_text(app)
        assert "global  placeholder: set ASSISTANT_OAUTH_HOST_GLOBAL" in text
        cn = next(line for line in text.splitlines() if "(default)" in line)
        assert "placeholder" not in cn  # a host that is set is shown as itself
