"""Ctrl+C on every screen the docs promise it on (#57 3): help, the QR code alone and the account
dialog quit (or ask first while a sign-in is in flight); on a question it says why it does not
quit yet. `?` opens help from the QR code too."""

from __future__ import annotations

from tests.app.helpers import screen_name, screen_text, wait_for
from tui.app import AssistantAuthApp
from tui.dev.scenes import authorization_server


async def test_ctrl_c_quits_from_help(home):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: screen_name(app) == "HelpScreen")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app._exit)  # nothing in flight: it quits at once


async def test_on_the_qr_code_ctrl_c_asks_and_on_the_question_it_says_why(home):
    app = AssistantAuthApp(no_browser=True, http_client=authorization_server("pending"))
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        await pilot.press("r")
        await wait_for(pilot, lambda: screen_name(app) == "QRScreen")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: screen_name(app) == "HelpScreen")
        # walked: titled "Keys on this screen", `?` listed twice and Ctrl+C not at all
        assert app.screen.topic == "QR code"
        listed = [description for _keys, description in app.screen.rows]
        assert listed.count("This help") == 1 and "Help" not in listed
        assert ("^c", "Quit (asks first while a sign-in runs)") in app.screen.rows
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "QRScreen")
        await pilot.press("ctrl+c")  # a sign-in is in flight: the quit question, never a silent nothing
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: "Answer the question first" in " ".join(screen_text(app).split()))
        assert not app._exit
        await pilot.press("y")
        await wait_for(pilot, lambda: app._exit)
