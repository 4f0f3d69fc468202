"""A broken config.toml is repaired from the wizard: the provider editor (read-only on it) offers
`b`, doctor's screen offers `f`, each with the diff first, and both apply the one repair."""

from __future__ import annotations

import pytest

from tests.app.helpers import footer_text, screen_name, screen_text, wait_for
from tests.core.test_config_restore import BROKEN, GOOD, planted
from tui.app import AssistantAuthApp


@pytest.mark.parametrize("size", [(80, 24), (60, 18)])
async def test_the_editor_restores_the_last_good_copy(home, size):
    path = planted(home)
    app = AssistantAuthApp(start="providers")
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen" and "read-only" in screen_text(app))
        assert "b restores the last good copy" in screen_text(app)
        assert app.screen.check_action("restore_backup", ())
        await pilot.press("b")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "-[broken" in screen_text(app) and "sk-secret-value-1234" not in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen" and "restored" in screen_text(app))
        assert "https://p.test/v1" in screen_text(app) and "read-only" not in screen_text(app)
        assert not app.screen.check_action("restore_backup", ())  # it parses: not offered any more
    assert path.read_bytes() == GOOD.encode()


async def test_the_editor_offers_nothing_without_a_good_copy(home):
    planted(home, copy=None)
    app = AssistantAuthApp(start="providers")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen" and "read-only" in screen_text(app))
        assert not app.screen.check_action("restore_backup", ()) and "Restore" not in footer_text(app)


async def test_declining_changes_nothing(home):
    path = planted(home)
    app = AssistantAuthApp(start="providers")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen" and "read-only" in screen_text(app))
        await pilot.press("b")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("n")
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen")
    assert path.read_bytes() == BROKEN.encode()


async def test_doctor_screen_repairs_it_with_the_diff_shown(home):
    path = planted(home)
    app = AssistantAuthApp(start="doctor")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "DoctorScreen" and app.screen.checks)
        screen = app.screen
        index = next(i for i, c in enumerate(screen.checks) if c.name == "config.parse")
        screen.query_one("#doctor-checks").move_cursor(row=index)
        await wait_for(pilot, lambda: screen.check_action("fix", ()))
        await pilot.press("f")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "-[broken" in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: path.read_bytes() == GOOD.encode())
