"""The wizard driven by real keys (Pilot) against the local authorization server."""

import pytest

from tests.app.helpers import screen_name, screen_text, toasts, wait_for
from tests.conftest import read_json, write_creds
from tests.toml import tomllib
from tui.app import AssistantAuthApp
from tui.core import MANAGED_PROVIDER
from tui.demo.server import TOKEN_PATH, Fault

SIZE = (80, 24)


@pytest.fixture
def fixed_code(server):
    server.user_code_factory = lambda: "WDJB-MJHT"
    return "WDJB-MJHT"


@pytest.mark.parametrize("keys, region", [(["enter"], "cn"), (["down", "enter"], "global")])
async def test_full_sign_in_approved_once_the_code_is_shown(server, home, fixed_code, keys, region):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        assert server.count() == 0  # nothing is requested before the user asks
        text = screen_text(app)
        assert "Not signed in" in text and "127.0.0.1" in text and "localhost" in text
        await pilot.press(*keys)
        # the code is on screen: approved only then (approval on a timer could replace the code
        # screen with Done before a loaded machine drew it)
        await wait_for(pilot, lambda: "W D J B - M J H T" in screen_text(app))
        assert server.verification_uri() in screen_text(app)
        server.approve(fixed_code)
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        text = screen_text(app)
        assert "Signed in" in text and "credentials" in text and MANAGED_PROVIDER in text
    entry = tomllib.loads((home / "config.toml").read_text())["providers"][MANAGED_PROVIDER]
    key = entry["oauth"]["key"]
    name = "assistant-code" if key == "oauth/assistant-code" else key.removeprefix("oauth/")
    assert (region == "global") == name.startswith("assistant-code-env-")
    creds = read_json(home / "credentials" / f"{name}.json")
    assert creds["access_token"] not in text and creds["refresh_token"] not in text


async def test_region_flag_preselects_global(server):
    app = AssistantAuthApp(region=__import__("tui.core", fromlist=["Region"]).Region.GLOBAL, no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.selected_region.value == "global"


async def test_denied_then_retry(server, fixed_code):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        server.deny(fixed_code)
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        assert app.screen.kind == "access_denied"
        assert "Access denied" in screen_text(app)
        before = server.count("/api/oauth/device_authorization")
        await pilot.press("enter")  # start again: a new code
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen" and app.screen.auth is not None)
        assert server.count("/api/oauth/device_authorization") == before + 1


async def test_expired_code_offers_new_code(server):
    server.device_ttl = 1
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        assert app.screen.kind == "expired"
        assert "The code expired" in screen_text(app)
        await pilot.press("escape")
        assert screen_name(app) == "HomeScreen"


async def test_cancel_mid_poll_sends_no_more_requests(server):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: "1 poll answered" in screen_text(app))
        await pilot.press("escape")
        assert screen_name(app) == "HomeScreen"
        await pilot.pause(0.3)  # a request already on the wire may still reach the server's log
        after_cancel = server.count(TOKEN_PATH)
        await pilot.pause(2.5)  # more than two poll intervals
        assert server.count(TOKEN_PATH) == after_cancel


async def test_slow_down_is_shown(server):
    server.inject(TOKEN_PATH, status=400, body='{"error": "slow_down"}')
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: "1 slow-down" in screen_text(app) and "polling every 6 s" in screen_text(app))
        text = screen_text(app)
        assert (
            "polling every 6 s" in text and "1 slow-down" in text and "1 slow-downs" not in text and "slow down" in text
        )
        await pilot.press("escape")


async def test_error_shows_spec_message_and_retry(server, quick_retry):
    # the first 502 is retried once by itself with the same code; the second ends the attempt
    server.inject(TOKEN_PATH, Fault(status=502, body="<html>Bad gateway</html>", content_type="text/html", times=2))
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        assert app.screen.kind == "error"
        assert "Token polling failed (HTTP 502): <html>Bad gateway</html>" in screen_text(app)
        await pilot.click("#back")
        assert screen_name(app) == "HomeScreen"


async def test_the_outcome_carries_no_stale_toast_of_the_code_screen(server):
    """ "Polling again with the same code in 3 s…" is over once the outcome shows: it is not laid
    over the outcome screen (it was, for its last seconds, whenever the toast was drawn in time)."""
    server.inject(TOKEN_PATH, Fault(status=502, body="<html>Bad gateway</html>", content_type="text/html", times=2))
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("polling again" in m for m in toasts(app)))
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        assert not app._notifications  # nothing left to draw over the outcome


async def test_device_authorization_error_is_shown(server):
    server.inject("/api/oauth/device_authorization", status=503, body="maintenance", content_type="text/plain")
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        assert "Device authorization failed (HTTP 503): maintenance" in screen_text(app)


HOSTILE_CODE = "[@click=app.quit]x[/]\x1b[31mRED\x1b]52;c;ZXZpbA==\x07"
HOSTILE_URI = "[link=https://evil.test]click[/link]\u202eevil"


async def test_markup_and_escapes_from_server_are_inert(server):
    server.user_code_factory = lambda: HOSTILE_CODE
    server.verification_uri_override = HOSTILE_URI
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: "[ @ c l i c k = a p p . q u i t ] x [ / ]" in screen_text(app))
        text = screen_text(app)
        assert "[ @ c l i c k = a p p . q u i t ] x [ / ]" in text  # shown literally, letter-spaced
        assert "[link=https://evil.test]click[/link]" in text
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        await pilot.click("#user-code")
        await pilot.click("#uri")
        await pilot.pause(0.1)
        # still the code screen, showing the same literal text: a live [@click=app.quit] would have quit
        assert screen_name(app) == "SignInScreen" and "[link=https://evil.test]click[/link]" in screen_text(app)
        await pilot.press("escape")


async def test_error_body_markup_is_inert(server, quick_retry):
    body = "[@click=app.quit]boom[/] [bold]x[/bold] \x1b[2J\x1b]0;title\x07"
    server.inject(TOKEN_PATH, Fault(status=500, body=body, content_type="text/plain", times=2))
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        text = screen_text(app)
        assert "[@click=app.quit]boom[/] [bold]x[/bold]" in text
        assert "\x1b" not in text
        await pilot.click("#outcome-error")
        assert screen_name(app) == "OutcomeScreen" and "[@click=app.quit]boom[/]" in screen_text(app)


async def test_copy_code_over_ssh_uses_osc52(server, fixed_code, monkeypatch):
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 5000 10.0.0.2 22")
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        await pilot.press("c")
        assert app.clipboard == fixed_code
        text = screen_text(app)
        assert "Asked your terminal to copy the code" in text and "set-clipboard on" in text
        assert "W D J B - M J H T" in text  # the code stays visible
        await pilot.press("u")
        assert app.clipboard.endswith("user_code=" + fixed_code)
        await pilot.press("escape")


async def test_copy_code_locally_uses_pyperclip(server, fixed_code, monkeypatch):
    import pyperclip

    copied = []
    monkeypatch.setattr(pyperclip, "copy", copied.append)
    monkeypatch.setenv("DISPLAY", ":0")  # a local graphical session
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        await pilot.press("c")
        assert copied == [fixed_code]
        assert "Copied the code to the clipboard" in screen_text(app)
        await pilot.press("escape")


async def test_qr_toggle_and_too_small(server):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        await pilot.press("r")
        assert app.screen.query_one("#qr-pane").display
        assert "█" in screen_text(app)
        await pilot.press("r")
        assert not app.screen.query_one("#qr-pane").display
        await pilot.resize_terminal(60, 20)  # too small beside the code, big enough on its own
        await pilot.pause()
        await pilot.press("r")
        await wait_for(pilot, lambda: screen_name(app) == "QRScreen")
        assert "█" in screen_text(app) and "r or esc: back" in screen_text(app)
        await pilot.press("r")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")
        await pilot.resize_terminal(50, 16)  # too small even alone: the size it needs, said once
        await pilot.pause()
        await pilot.press("r")
        await wait_for(
            pilot,
            lambda: (
                "The QR code needs a terminal of at least" in screen_text(app)
                or any("The QR code needs" in m for m in toasts(app))
            ),
        )
        await pilot.pause()
        inline = "The QR code needs" in str(app.screen.query_one("#notice").render())
        toast = any("The QR code needs" in m for m in toasts(app))
        assert inline != toast and "(this one is 50×16)" in (
            str(app.screen.query_one("#notice").render()) + " ".join(toasts(app))
        )
        assert not app.screen.query_one("#qr-pane").display and screen_name(app) == "SignInScreen"
        await pilot.press("escape")


def footer_text(app) -> str:
    return screen_text(app).splitlines()[-1]


@pytest.mark.parametrize(
    "no_browser, env, offered",
    [
        (False, {"BROWSER": "true"}, True),  # a browser can open here: `o` is offered
        (True, {"BROWSER": "true"}, False),  # --no-browser
        (False, {"BROWSER": "true", "SSH_CONNECTION": "10.0.0.1 5 10.0.0.2 22"}, False),  # over SSH
        (False, {"BROWSER": "", "DISPLAY": ""}, False),  # no display, no browser to run
    ],
)
async def test_open_browser_offered_only_where_it_can_work(server, monkeypatch, no_browser, env, offered):
    for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    app = AssistantAuthApp(no_browser=no_browser)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        await pilot.pause()
        assert ("Open browser" in footer_text(app)) is offered
        assert "Cancel" in footer_text(app)
        await pilot.press("escape")


@pytest.mark.parametrize(
    "content, words",
    [
        (None, "Not signed in"),
        ({"access_token": "AT-x", "refresh_token": "r", "expires_at": 4102444800}, "Signed in · expires in "),
        ({"access_token": "AT-x", "refresh_token": "r", "expires_at": 1}, "token expired, refreshes on next use"),
        ({"access_token": "AT-x", "expires_at": 1}, "expired, no refresh token: sign in again"),
        ("{corrupt", "unparsable: Expecting"),
    ],
)
async def test_home_shows_slot_state(home, content, words):
    if content is not None:
        write_creds(home, content)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert words in text
        assert "AT-x" not in text


async def test_host_settings_are_shown_as_plain_text(monkeypatch):
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_GLOBAL", "https://[b]bold[/b].test")
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "https://[b]bold[/b].test" in screen_text(app)


async def test_timeout_offers_new_code(server):
    import json

    server.inject(
        "/api/oauth/device_authorization",
        status=200,
        body=json.dumps({"user_code": "LONG-WAIT", "device_code": "dc-t", "interval": 10**6}),
    )
    server.inject(TOKEN_PATH, status=400, body='{"error": "authorization_pending"}')
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        assert app.screen.kind == "timeout"
        assert "Gave up waiting" in screen_text(app) and "Start again" in screen_text(app)


async def test_the_codes_own_lifetime_ends_on_the_expired_screen(server, home):
    """A server that keeps answering authorization_pending past a 3 s code: the wizard stops at
    the code's deadline and shows the Expired screen (never "Gave up waiting" after 15 minutes)."""
    server.device_ttl = 3
    server.expire_codes = False
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        assert "The code expired" in screen_text(app)
    assert server.count(TOKEN_PATH) <= 4
