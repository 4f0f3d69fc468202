"""#57 5: "While you were away, the sign-in … completed" showed on Home for about five seconds
(until the next reading, its record removed once shown) and then nowhere, `status` included. It
stays on Home until the person has seen it: they move to another screen."""

from __future__ import annotations

import pytest

from tests.app.helpers import screen_name, screen_text, wait_for
from tests.core.signin.test_ondisk import ended_unseen
from tui.app import AssistantAuthApp
from tui.core.signin import follow, ondisk

AWAY = "While you were away, the sign-in started at"


@pytest.mark.parametrize("size", [(60, 18), (80, 24), (100, 30)])
async def test_the_away_notice_stays_on_home_until_another_screen(home, size):
    follow.write(ended_unseen())
    app = AssistantAuthApp()
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen" and AWAY in screen_text(app))
        await wait_for(pilot, lambda: ondisk.away() == [])  # the exact state: marked seen on disk
        app.screen.refresh_slot()  # the next reading (every 5 s): the record is gone by now
        await pilot.pause()
        assert AWAY in screen_text(app)  # still said: nobody moved on yet
        await pilot.press("p")  # another screen: it has been seen
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await pilot.pause()
        assert AWAY not in screen_text(app)
