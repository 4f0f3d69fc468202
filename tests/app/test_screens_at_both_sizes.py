"""A newcomer's first ten minutes in the app, at 80×24 and 60×18: placeholder hosts said before
Enter, Help/Quit/Back in every footer, a help screen that scrolls, broken states that say what to do."""

from __future__ import annotations

import time

import pytest

from tests.app.helpers import answer, screen_name, screen_text, wait_for
from tests.app.test_providers_screen import open_providers, type_into, write_config
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.core import Region
from tui.core.credentials import rejections
from tui.core.slots.state import slot_status
from tui.core.spec.keys import region_storage_name
from tui.core.text.humantime import stamp

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


def flat(app) -> str:
    """The screen's words in one line: a phrase found wherever the screen wraps it."""
    return " ".join(screen_text(app).split())


def footer(app) -> str:
    return screen_text(app).splitlines()[-1]


async def open_screen(pilot, app, key: str, name: str) -> None:
    await pilot.press(key)
    await wait_for(pilot, lambda: screen_name(app) == name)


async def back_help_and_quit_in_every_footer(pilot, app, back: str, help_key: str, quit_key: str) -> None:
    """From Home, the inspector, the editor and doctor each keep Back first, then Quit and Help
    (`back`, `help_key`, `quit_key`: the footer's words in the reader's language)."""
    for key, name in [("i", "CredentialsScreen"), ("p", "ProvidersScreen"), ("d", "DoctorScreen")]:
        await open_screen(pilot, app, key, name)
        await wait_for(pilot, lambda: help_key in footer(app))
        line = footer(app)
        assert line.startswith(back) and quit_key in line, line
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")


@pytest.mark.parametrize("size", SIZES)
async def test_help_quit_and_back_stay_in_every_footer(home, size):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await wait_for(pilot, lambda: "? Help" in footer(app))
        assert "q Quit" in footer(app)
        await back_help_and_quit_in_every_footer(pilot, app, "esc Back", "? Help", "^q Quit")


@pytest.mark.parametrize("size", SIZES)
async def test_help_lists_quit_once_and_scrolls_to_its_last_row(home, size):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await open_screen(pilot, app, "question_mark", "HelpScreen")
        assert [row for row in app.screen.rows if row[1].startswith("Quit")] == [
            ("q / ^q", "Quit (asks first while a sign-in runs)")
        ]
        assert "esc closes this help" in screen_text(app)
        body = app.screen.query_one("#help-body")
        assert body.has_focus
        await pilot.press("end")
        await wait_for(pilot, lambda: body.scroll_y == body.max_scroll_y)
        text = screen_text(app)
        assert "Command palette" in text and "esc closes this help" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")


@pytest.mark.parametrize("size", SIZES)
async def test_inspector_after_logout_offers_only_sign_in(home, size):
    write_creds(home, {"access_token": "AT-1", "refresh_token": "RT-1", "expires_at": int(time.time()) + 600})
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await open_screen(pilot, app, "i", "CredentialsScreen")
        await wait_for(pilot, lambda: "Log out" in footer(app))
        assert "r Refresh" in footer(app)
        await answer(pilot, "l", "y")
        await wait_for(pilot, lambda: "Signed out" in screen_text(app))
        await wait_for(pilot, lambda: "Log out" not in footer(app))
        line = footer(app)
        for word in ("Refresh", "Fix mode", "Move aside", "Switch"):
            assert word not in line, line
        assert line.startswith("esc Back") and "s Sign in" in line and "? Help" in line


@pytest.mark.parametrize("size", SIZES)
async def test_done_shows_the_expiry_of_a_refresh_made_in_the_inspector(server, home, size):
    server.auto_approve = 0.2
    server.access_ttl = 600
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        before = slot_status("assistant-code").expires_at
        assert stamp(before) in flat(app)
        server.access_ttl = 7 * 86400  # the refresh brings a week-long token: another date
        await open_screen(pilot, app, "i", "CredentialsScreen")
        await answer(pilot, "r", "y")
        await wait_for(pilot, lambda: "Refreshed" in screen_text(app))
        after = slot_status("assistant-code").expires_at
        assert stamp(after) != stamp(before)
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        await wait_for(pilot, lambda: stamp(after) in flat(app))
        assert stamp(before) not in flat(app)


@pytest.mark.parametrize("size", SIZES)
async def test_a_rejected_refresh_says_sign_in_again_and_signing_in_is_the_default(home, size):
    now = int(time.time())
    write_creds(home, {"access_token": "AT-1", "refresh_token": "RT-dead", "expires_at": now - 60})
    rejections.remember("assistant-code", "RT-dead", 400)
    write_creds(
        home,
        {"access_token": "AT-2", "refresh_token": "RT-dead", "expires_at": now + 3600},
        name=region_storage_name(Region.GLOBAL),
    )
    rejections.remember(region_storage_name(Region.GLOBAL), "RT-dead", 401)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: "refresh rejected: sign in again" in screen_text(app))
        assert "refreshes on next use" not in screen_text(app)
        await open_screen(pilot, app, "i", "CredentialsScreen")
        await wait_for(pilot, lambda: "Refresh    rejected by the server" in screen_text(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await pilot.press("down", "enter")  # global: works for an hour, then not
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "rejected its refresh token" in screen_text(app)
        assert app.screen.focused.id == "yes"  # Enter signs in again
        await pilot.press("n")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")


def in_view(form, widget) -> bool:
    """The field's row lies wholly inside the form's visible part."""
    row = widget if widget.has_class("form-row") else widget.parent
    top = row.virtual_region.y
    return form.scroll_y <= top and top + row.outer_size.height <= form.scroll_y + form.scrollable_content_region.height


@pytest.mark.parametrize("size", SIZES)
async def test_editor_arrows_move_between_fields_and_save_shows_the_first_invalid_one(home, size):
    write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await open_providers(pilot)
        form = app.screen.query_one("#provider-form")
        app.screen.query_one("#field-base_url").value = "not a url"  # as typed (Input.Changed validates)
        await wait_for(pilot, lambda: app.screen.query_one("#row-base_url").has_class("invalid"))
        app.screen.query_one("#field-base_url").focus()
        for expected in (
            "field-enabled",
            "field-active",
            "field-oauth_key",
            "field-oauth_host",
            "field-api_key",
            "field-note",
        ):
            await pilot.press("down")
            await wait_for(pilot, lambda: app.screen.focused.id == expected)
            await wait_for(pilot, lambda: in_view(form, app.screen.focused))  # typing lands in a field in view
        await pilot.press("up")
        await wait_for(pilot, lambda: app.screen.focused.id == "field-api_key")
        await pilot.press("down")
        await wait_for(pilot, lambda: app.screen.focused.id == "field-note")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen.focused.id == "field-base_url")
        await wait_for(pilot, lambda: in_view(form, app.screen.query_one("#row-base_url")))
        assert "Fix the fields marked in red" in screen_text(app)
        app.screen.query_one("#field-base_url").value = "https://api.openai.test/v2"
        await wait_for(pilot, lambda: "Fix the fields marked in red" not in screen_text(app))


@pytest.mark.parametrize("size", SIZES)
async def test_editor_reload_asks_before_dropping_edits_and_f2_says_it_shows_the_file(home, size):
    write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await open_providers(pilot)
        await type_into(pilot, "#field-note", "mine")
        await answer(pilot, "ctrl+r", "n")  # keep editing
        assert app.screen.query_one("#field-note").value == "mine"
        await answer(pilot, "ctrl+r", "y")
        await wait_for(pilot, lambda: app.screen.query_one("#field-note").value == "")
        await wait_for(pilot, lambda: "File on disk" in footer(app))
        await pilot.press("f2")
        await wait_for(
            pilot, lambda: "config.toml on disk, without unsaved edits" in " ".join(screen_text(app).split())
        )


@pytest.mark.parametrize("size", SIZES)
async def test_a_copy_notice_is_said_once_and_never_over_the_status(server, monkeypatch, size):
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 50000 10.0.0.2 22")
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        await pilot.press("c")
        notice = app.screen.query_one("#notice")
        await wait_for(pilot, lambda: "copy the code" in str(notice.render()))
        await pilot.pause()
        assert app.screen.notice_in_view() and not app._notifications  # inline, in view: no toast on top
        status = app.screen.query_one("#poll-state")
        assert status.region.bottom <= notice.region.y  # the notice sits below the live status


async def test_the_qr_code_alone_at_60x18_while_the_sign_in_goes_on(server):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(60, 18)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        code = app.screen.auth.user_code
        await pilot.press("r")
        await wait_for(pilot, lambda: screen_name(app) == "QRScreen")
        assert "█" in screen_text(app)
        # approved while the QR code is shown: Done replaces it, nothing is left on the stack
        server.approve(code)
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        assert [type(s).__name__ for s in app.screen_stack] == ["HomeScreen", "DoneScreen"]


async def test_the_qr_code_sits_beside_the_code_on_a_wide_terminal(server):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        await pilot.press("r")
        qr = app.screen.query_one("#qr")
        await wait_for(pilot, lambda: qr.region.width > 0)
        code_pane = app.screen.query_one("#code-pane")
        assert qr.region.x - code_pane.region.right <= 4  # next to it, not across the screen
