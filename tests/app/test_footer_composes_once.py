"""The footer composes once for a change, however many come before the next refresh: a screen's
start changes its bindings three times in a row, and each used to compose the footer again (four
composes where one draws it: a third of an app's start). Its keys are born with the width's
`-compact` class, not restyled one by one after mounting."""

from __future__ import annotations

import time

from textual.widgets._footer import FooterKey

from tests.app.helpers import screen_name, wait_for
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.app.widgets.footer import AppFooter


def counted(monkeypatch) -> list[int]:
    """The widths the footer composed at, one entry a compose."""
    widths: list[int] = []
    recompose = AppFooter.recompose

    async def counting(self):
        widths.append(self.size.width)
        await recompose(self)

    monkeypatch.setattr(AppFooter, "recompose", counting)
    return widths


def bound_keys(app) -> list[FooterKey]:
    """The screen's keys (the palette's own key is compact at every width, as Textual draws it)."""
    keys = app.screen.query_one(AppFooter).query(FooterKey)
    return [key for key in keys if not key.has_class("-command-palette")]


def settled(app) -> bool:
    footer = app.screen.query_one(AppFooter)
    return footer.drawn is not None and not footer.looking and bool(footer.query(FooterKey))


async def test_a_screens_start_composes_its_footer_once(home, monkeypatch):
    widths = counted(monkeypatch)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen" and settled(app))
        await pilot.pause()
        assert settled(app)
        assert widths == [80]
        keys = bound_keys(app)
        assert keys and all(key.has_class("-compact") for key in keys)

        await pilot.resize_terminal(120, 30)  # wide: one compose more, the keys born without the class
        await wait_for(pilot, lambda: len(widths) == 2 and settled(app))
        await pilot.pause()
        assert widths == [80, 120]
        keys = bound_keys(app)
        assert keys and not any(key.has_class("-compact") for key in keys)


async def test_a_change_that_draws_nothing_new_composes_nothing(home, monkeypatch):
    widths = counted(monkeypatch)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen" and settled(app))
        footer = app.screen.query_one(AppFooter)
        footer.bindings_changed(app.screen)  # the same keys: looked at, not composed
        footer.bindings_changed(app.screen)
        assert footer.looking
        await wait_for(pilot, lambda: not footer.looking)
        await pilot.pause()
        assert widths == [80]


async def test_a_look_that_comes_after_its_screen_left_does_nothing(home, server):
    """A look waits for the next refresh; by then its screen may be leaving (Esc on a loaded
    machine, CI): its table already removed, the footer still attached. The look asked the
    inspector for its selected row, the table was not found, and the app ended."""
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(60, 18)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen" and settled(app))
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen" and settled(app))
        inspector = app.screen
        footer = inspector.query_one(AppFooter)
        table = inspector.query_one("#slots")
        app.pop_screen()  # Esc: the screen leaves, and its widgets go one by one…
        await table.remove()
        assert footer.is_attached and inspector.slots  # …the table gone, the footer not yet
        await footer._compose_if_changed()  # the look that was waiting for this refresh
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        assert app.is_running
        await pilot.press("i")  # and the app goes on
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
