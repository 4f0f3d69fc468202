"""Feedback that survives real terminals: toasts at 60×18, Cancel/Back always in the footer, the
complete address as text and link, help, Ctrl+C, the replace question, the demo's approve key."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from tests.app.helpers import run_palette_command, screen_name, screen_text, wait_for
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.core import Region
from tui.core.config.provider import provision_managed_provider
from tui.core.spec.keys import region_key
from tui.demo.server import DEVICE_PATH

SMALL = (60, 18)


def footer(app) -> str:
    return screen_text(app).splitlines()[-1]


def toasts(app) -> list[str]:
    return [notification.message for notification in app._notifications]


async def start_sign_in(pilot, app) -> None:
    await pilot.press("enter")
    await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
    await pilot.pause()


def said(app, words: str) -> int:
    """How many times a key's result is on screen: the notice line and the toasts."""
    inline = words.lower() in str(app.screen.query_one("#notice").render()).lower()
    return int(inline) + sum(words.lower() in message.lower() for message in toasts(app))


async def test_key_results_are_said_once_and_cancel_stays_visible_at_60x18(server):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SMALL) as pilot:
        await start_sign_in(pilot, app)
        assert footer(app).startswith("esc Cancel")
        code = app.screen.auth.user_code
        await pilot.press("c")
        await wait_for(pilot, lambda: said(app, "copy the code") == 1)
        await pilot.pause()
        assert said(app, "copy the code") == 1  # once: inline when in view, else a toast
        assert code not in " ".join(toasts(app))  # it says what happened, not the code
        await pilot.press("u")
        await wait_for(pilot, lambda: said(app, "address") == 1)
        await pilot.press("r")  # the QR code alone fits 60×18: a screen of its own
        await wait_for(pilot, lambda: screen_name(app) == "QRScreen")
        await pilot.press("escape")  # back to the code, the sign-in still running
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")
        # the code and the waiting state stay in view at 60×18
        text = screen_text(app)
        assert " ".join(code) in text and "Waiting for you to approve" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        assert "q Quit" in footer(app)


@pytest.mark.parametrize("size", [(60, 18), (80, 24)])
async def test_back_is_first_in_every_footer(home, size):
    write_creds(home, {"access_token": "AT-1", "expires_at": int(time.time()) + 600})
    provision_managed_provider(region_key(Region.CN), Region.CN)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        assert footer(app).startswith("esc Back")
        await pilot.press("escape", "p")
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen")
        assert footer(app).startswith("esc Back")


@pytest.mark.parametrize("force, linked", [("1", True), ("0", False)])
async def test_complete_address_shown_as_text_and_linked_where_supported(server, monkeypatch, force, linked):
    monkeypatch.setenv("FORCE_HYPERLINK", force)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await start_sign_in(pilot, app)
        complete = app.screen.auth.verification_uri_complete
        line = app.screen.query_one("#uri-complete")
        assert line.display and complete in screen_text(app)
        content = line.visual
        links = [span.style.link for span in content.spans if getattr(span.style, "link", None)]
        assert links == ([complete] if linked else [])


async def test_complete_address_refused_by_the_browser_policy_is_never_a_link(monkeypatch):
    from tui.demo.env import server_env
    from tui.demo.server import AuthServer

    monkeypatch.setenv("FORCE_HYPERLINK", "1")
    with AuthServer(interval=1) as server:
        for name, value in server_env(server.url, None).items():
            if value is not None:
                monkeypatch.setenv(name, value)
        original = server.device_authorization

        def hostile(form):
            status, body = original(form)
            body["verification_uri_complete"] = "javascript:alert(1)//" + body["user_code"]
            return status, body

        server.device_authorization = hostile
        app = AssistantAuthApp(no_browser=True)
        async with app.run_test(size=(120, 30)) as pilot:
            await start_sign_in(pilot, app)
            line = app.screen.query_one("#uri-complete")
            assert not [span for span in line.visual.spans if getattr(span.style, "link", None)]
            assert "Open browser" not in footer(app)


async def test_help_from_question_mark_f1_and_the_palette(server):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: screen_name(app) == "HelpScreen")
        text = screen_text(app)
        assert "Credentials" in text and "Quit" in text
        assert "Switch to it" not in text  # nothing signed in: nothing to switch to
        await pilot.press("escape")
        await start_sign_in(pilot, app)
        await pilot.press("f1")
        await wait_for(pilot, lambda: screen_name(app) == "HelpScreen")
        text = screen_text(app)
        for words in ("Copy code", "Copy URL", "QR code", "Cancel"):
            assert words in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")
        await run_palette_command(pilot, "Help", "HelpScreen")
        assert "Copy code" in screen_text(app)  # the help of the screen the palette was opened on


async def test_ctrl_c_quits_at_once_on_home(server):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running


async def test_ctrl_c_asks_while_a_sign_in_is_in_flight(server):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await start_sign_in(pilot, app)
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "Quit while signing in?" in screen_text(app)
        await pilot.press("n")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")
        assert app.is_running
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("y")
        await pilot.pause()
        assert not app.is_running


async def test_sign_in_asks_before_replacing_a_usable_session(server, home):
    write_creds(home, {**server.issue_tokens(subject="user-9"), "expires_at": int(time.time()) + 600})
    provision_managed_provider(region_key(Region.CN), Region.CN)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "AccountChoiceScreen")
        text = screen_text(app)
        assert "cn has an account already: add another, or sign in again?" in text and "Signed in as user-9" in text
        assert app.screen.focused is not None and app.screen.focused.id == "account-name"
        await pilot.press(*"nancy-y")  # letters typed go into the name, never to the dialog's choices
        assert app.screen.query_one("#account-name").value == "nancy-y" and screen_name(app) == "AccountChoiceScreen"
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        assert server.count(DEVICE_PATH) == 0  # no sign-in was started
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "AccountChoiceScreen")
        await pilot.click("#again")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")
        await pilot.press("escape")
        # global has no sign-in: no question
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")


async def test_demo_approve_key_and_page_shown_only_in_the_demo(server):
    approved = []

    def approve(user_code: str, subject: str | None = None) -> str:
        approved.append(user_code)
        return server.approve_on_page(user_code, subject)

    app = AssistantAuthApp(no_browser=True, demo=SimpleNamespace(page=server.verification_uri(), approve=approve))
    async with app.run_test(size=SMALL) as pilot:
        await start_sign_in(pilot, app)
        text = screen_text(app)
        assert "Demo: press a to approve" in text and "Approve (demo)" in footer(app)
        code = app.screen.auth.user_code  # read before `a`: the approval may end the screen at once
        await pilot.press("a")
        assert approved == [code]
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        assert "Signed in as user-1" in screen_text(app)

    plain = AssistantAuthApp(no_browser=True)
    async with plain.run_test(size=SMALL) as pilot:
        await pilot.press("down")  # global: cn is signed in now (and would ask before replacing)
        await start_sign_in(pilot, plain)
        assert "Demo" not in screen_text(plain) and "Approve (demo)" not in footer(plain)
        await pilot.press("a")  # not bound outside the demo
        await pilot.pause()
        assert screen_name(plain) == "SignInScreen"


async def test_title_bar_separates_title_and_screen(server):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "assistant-auth · home" in screen_text(app).splitlines()[0]
