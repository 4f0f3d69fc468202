"""The editor asks before discarding, Tab lands on a field, switches say on/off, the diff scrolls,
the raw view wraps; the inspector sizes its columns, forgets stale messages, explains `m` and
`expires_at` 0, and switches the managed provider."""

from __future__ import annotations

import os
import time

import pytest

from tests.app.helpers import screen_name, screen_text, toasts, wait_for
from tests.app.test_providers_screen import (
    CONFIG,
    open_providers,
    type_into,
    write_config,
)
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.core import Region
from tui.core.config.provider import provision_managed_provider
from tui.core.slots.switch import managed_region
from tui.core.spec.keys import region_key, region_storage_name


async def test_escape_asks_before_discarding_edits(home):
    path = write_config(home)
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 34)) as pilot:
        await open_providers(pilot)
        await type_into(pilot, "#field-base_url", "https://api.openai.test/v2")
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "Discard changes to base_url?" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen")
        assert app.screen.query_one("#field-base_url").value == "https://api.openai.test/v2"  # kept
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
    assert path.read_text() == CONFIG  # nothing written


async def test_escape_without_edits_leaves_at_once(home):
    write_config(home)
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 34)) as pilot:
        await open_providers(pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")


async def test_first_tab_lands_on_the_first_field(home):
    write_config(home)
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 34)) as pilot:
        await open_providers(pilot)
        assert app.focused.id == "provider-table"
        await pilot.press("tab")
        assert app.focused.id == "field-base_url"


async def test_switches_say_on_and_off_in_words(home, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    write_config(home)
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 34)) as pilot:
        await open_providers(pilot)
        state = lambda field: str(app.screen.query_one(f"#state-{field}").render())  # noqa: E731
        assert (state("enabled"), state("active")) == ("on", "off")
        app.screen.query_one("#field-active").focus()
        await pilot.press("space")
        await pilot.pause()
        assert state("active") == "on"


async def test_save_diff_scrolls_with_the_keyboard(home):
    write_config(home)
    app = AssistantAuthApp()
    async with app.run_test(size=(60, 18)) as pilot:
        await open_providers(pilot)
        await type_into(pilot, "#field-base_url", "https://api.openai.test/v2")
        await type_into(pilot, "#field-note", "a note")
        app.screen.query_one("#field-enabled").focus()
        await pilot.press("space")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        body = app.screen.query_one("#confirm-body")
        assert body.max_scroll_y > 0  # the diff is longer than the dialog at 60×18
        assert app.focused.id == "no"  # the safe answer keeps the focus...
        await pilot.press("down", "down")
        await pilot.pause()
        assert body.scroll_y > 0  # ...while the arrows scroll the diff
        await pilot.press("end")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("n")


async def test_raw_view_wraps_long_lines(home):
    tail = "END-OF-A-LONG-LINE"
    write_config(home, CONFIG + f'\n[long]\nvalue = "{"x" * 150}{tail}"\n')
    app = AssistantAuthApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_providers(pilot)
        await pilot.press("f2")
        await pilot.pause()
        raw = app.screen.query_one("#raw-view")
        raw.scroll_end(animate=False)
        await pilot.pause()
        assert tail in screen_text(app)


def signed_in(home, name="assistant-code", **extra):
    return write_creds(
        home,
        {"access_token": "AT-1", "refresh_token": "RT-1", "expires_at": int(time.time()) + 600, **extra},
        name=name,
    )


async def test_inspector_columns_fit_their_content_and_stale_messages_go(home):
    signed_in(home)
    signed_in(home, name=region_storage_name(Region.GLOBAL))
    provision_managed_provider(region_key(Region.CN), Region.CN)
    for directory in (home, home / "credentials"):
        os.chmod(directory, 0o700)
    app = AssistantAuthApp()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        text = screen_text(app)
        assert "managed:assistant-code" in text and " global " in text  # named as Home names it
        assert "▊" not in text.splitlines()[1]
        assert not app.screen.check_action("fix_mode", ())  # already private: m is not offered
        assert not app.screen.check_action("switch", ())  # already the managed provider's
        await pilot.press("down")
        await pilot.press("w")  # the other region's sign-in: switched, and said
        notice = lambda: str(app.screen.query_one("#inspector-notice").render())  # noqa: E731
        await wait_for(pilot, lambda: notice() != "")
        await pilot.press("up")
        await pilot.pause()
        assert notice() == ""  # the message was about the other row


async def test_fix_mode_dialog_shows_each_mode_before_and_after(home):
    path = signed_in(home)
    os.chmod(path, 0o644)
    os.chmod(path.parent, 0o755)
    app = AssistantAuthApp()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        await pilot.press("m")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        text = screen_text(app)
        assert "credentials: 0755 -> 0700" in text and "assistant-code.json: 0644 -> 0600" in text
        await pilot.press("y")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700


async def test_m_without_any_slot_is_not_offered(home):
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        assert "Fix mode" not in screen_text(app).splitlines()[-1]
        await pilot.press("m")
        await pilot.pause()
        assert screen_name(app) == "CredentialsScreen"  # no dialog: there is no file to fix


@pytest.mark.parametrize(
    "creds, words",
    [
        ({"access_token": "", "refresh_token": "", "expires_at": 0}, "signed out (revoked)  never"),
        ({"access_token": "AT-1", "refresh_token": "RT-1", "expires_at": 0}, "Expires    never (expires_at is 0)"),
    ],
)
async def test_expires_at_zero_reads_never_not_1970(home, creds, words):
    write_creds(home, creds)
    app = AssistantAuthApp()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        text = screen_text(app)
        assert "1970" not in text and "days ago" not in text
        assert words in text


async def test_inspector_switches_the_managed_provider(home):
    signed_in(home)
    signed_in(home, name=region_storage_name(Region.GLOBAL))
    provision_managed_provider(region_key(Region.CN), Region.CN)
    app = AssistantAuthApp()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        names = [slot.name for slot in app.screen.slots]
        for _ in range(names.index(region_storage_name(Region.GLOBAL))):
            await pilot.press("down")
        await pilot.press("w")
        await wait_for(pilot, lambda: managed_region() == Region.GLOBAL)
        assert any("global" in m for m in toasts(app))


@pytest.mark.parametrize("size", [(80, 24), (60, 18)])
async def test_an_unparsable_slot_offers_only_move_aside_and_sign_in(home, size):
    """A broken file can be moved aside (x) or signed in again (s): it cannot be switched to, its
    mode is already private, and logging out would lose what `x` keeps."""
    path = write_creds(home, "{not json", name="assistant-code")
    provision_managed_provider(region_key(Region.GLOBAL), Region.GLOBAL)
    for directory in (home, path.parent):
        os.chmod(directory, 0o700)
    app = AssistantAuthApp()
    async with app.run_test(size=size) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen" and app.screen.selected is not None)
        screen = app.screen
        await wait_for(pilot, lambda: screen.selected.name == "assistant-code")
        offered = {
            action
            for action in ("switch", "logout", "fix_mode", "move_aside", "sign_in", "refresh_token")
            if screen.check_action(action, ())
        }
        assert offered == {"move_aside", "sign_in"}
        await pilot.press("w", "l", "m")
        await pilot.pause()
        assert not [n for n in app._notifications if "Switched" in str(n.title)]
        assert screen_name(app) == "CredentialsScreen" and path.read_text() == "{not json"
