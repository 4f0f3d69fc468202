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


@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_the_question_says_what_the_copy_is_whole_at_every_width(home, size):
    """The copy is config.toml from before the editor's last save (#56 14): the question says so,
    with the save's time, wrapped, never cut at the screen's edge."""
    import os
    import time

    path = planted(home)
    saved = time.mktime((2026, 11, 28, 14, 2, 0, 0, 0, -1))
    os.utime(path.with_name("config.toml.bak"), (saved, saved))
    app = AssistantAuthApp(start="providers")
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen" and "read-only" in screen_text(app))
        await pilot.press("b")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        intro = app.screen.query_one("#confirm-intro")
        assert "before the provider editor's save at 2026-11-28 14:02" in intro.plain_text
        assert "also undoes that save and later edits" in intro.plain_text
        assert "2026-11-28 14:02" in screen_text(app)  # on screen, not only in the widget
        # wrapped within the dialog, never cut at its edge: every line of it is as wide as the box at most
        assert intro.size.width <= app.screen.query_one("#confirm").size.width
        assert intro.size.height >= 2 and intro.virtual_size.width <= intro.size.width
        await pilot.press("n")


TOO_LARGE = GOOD + "# pasted\r\n" * 120_000  # over the 1 MiB every reader of config.toml takes


@pytest.mark.parametrize("size", [(60, 18), (80, 24), (100, 30)])
async def test_a_file_too_large_to_read_offers_its_copy_and_no_save(home, size):
    """#58 6, #57 8: a config.toml too large for its readers is one that does not parse: the
    editor offers `b` (the restore, the file replaced whole, said with its size) and never
    `^s Save`, which could only answer "Nothing to save"."""
    path = planted(home, current=TOO_LARGE)
    app = AssistantAuthApp(start="providers")
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen" and app.screen.restore is not None)
        assert "larger" in screen_text(app)  # where it wraps depends on the path's length
        assert app.screen.check_action("restore_backup", ()) and not app.screen.check_action("save", ())
        assert "Save" not in footer_text(app)
        await pilot.press("b")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "replaced whole by its copy" in screen_text(app) and "sk-secret-value-1234" not in screen_text(app)
        await pilot.press("y")
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen" and "restored" in screen_text(app))
        assert app.screen.check_action("save", ()) and not app.screen.check_action("restore_backup", ())
    assert path.read_bytes() == GOOD.encode()
    assert [p.read_bytes() for p in home.glob("config.toml.corrupt-*")] == [TOO_LARGE.encode()]


async def test_a_file_that_cannot_be_read_and_has_no_copy_offers_neither(home):
    planted(home, current=TOO_LARGE, copy=None)
    app = AssistantAuthApp(start="providers")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen" and "left as it is" in screen_text(app))
        assert "larger" in screen_text(app) and "Save" not in footer_text(app) and "Restore" not in footer_text(app)
        assert "left as it is" in screen_text(app)
