"""Class 1 of the hardening issue: a server's address can never run code through the browser launch.

One policy (`tui.terminal.browser.address_refusal`) decides what is opened, linked and drawn as a QR code;
`BROWSER` is honoured as Python's webbrowser documents it, and a shell entry gets the address
quoted. The launches here run real processes.
"""

from __future__ import annotations

import os
import time

import pytest

from tests.app.helpers import screen_text, wait_for
from tui.app import AssistantAuthApp
from tui.terminal.browser import address_refusal, browser_commands, open_url

ACCEPTED = [
    "https://auth.example.com/device",
    "https://auth.example.com/device?user_code=WDJB-MJHT",
    "HTTPS://auth.example.com:8443/device#x",
    "http://127.0.0.1:8080/device",
    "http://localhost/device",
    "http://[::1]:9/device",
]

REFUSED = [
    "--gpu-launcher=/bin/sh -c id",  # an option for Chromium-family browsers
    "-https://auth.example.com",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "http://auth.example.com/device",  # plain http off this machine
    "ftp://auth.example.com/",
    "https://",  # no host
    "//auth.example.com/device",  # not absolute
    "https://auth.example.com/device code",  # whitespace
    "https://auth.example.com/\tdevice",
    "https://auth.example.com/\ndevice",
    "https://auth.example.com/\x1b[2J",
    "https://auth.example.com/\u202edevice",  # bidi override
    "https://аuth.example.com/",  # Cyrillic a
    "https://user:pass@auth.example.com/",  # userinfo
    "https://good.example@evil.example/",
    "https://auth.example.com:abc/",  # bad port
    "https://[::1/",  # unclosed bracket
    "",
    None,
]


@pytest.mark.parametrize("url", ACCEPTED)
def test_clean_addresses_are_accepted(url):
    assert address_refusal(url) is None


@pytest.mark.parametrize("url", REFUSED)
def test_hostile_addresses_are_refused_and_never_launched(url):
    assert address_refusal(url) is not None
    env = {"DISPLAY": ":0", "BROWSER": "firefox:chromium %s"}
    assert browser_commands(url, env) == []
    assert open_url(url, env).startswith("Not opening the address: ")


def launch_and_wait(url: str, browser: str, out: str, timeout: float = 30.0) -> str:
    """Open `url` with `browser`; once a browser was started, wait until it has written the whole
    line to `out` (the event itself: the file ends with its newline)."""
    message = open_url(url, {"DISPLAY": ":0", "BROWSER": browser})
    if message != "Opened the verification page in your browser.":
        return message  # nothing was started: nothing to wait for
    deadline = time.monotonic() + timeout
    while not (os.path.exists(out) and open(out).read().endswith("\n")):
        assert time.monotonic() < deadline, "the browser never wrote its line"
        time.sleep(0.02)
    return message


@pytest.mark.parametrize(
    "url",
    [
        "https://auth.example.com/device?x=1&touch=PWNED|touch%20PWNED",
        "https://auth.example.com/(touch)PWNED;touch;PWNED",
        "https://auth.example.com/device?a=*&b=~&c=<PWNED>",
        "https://auth.example.com/device?a=1;touch${IFS}PWNED",  # `$`: never handed to a shell
        "https://auth.example.com/device?q=`touch PWNED`".replace(" ", "${IFS}"),
        "https://auth.example.com/device?q='x';touch PWNED".replace(" ", ""),
    ],
)
@pytest.mark.parametrize(
    "browser",
    [
        "sh -c 'echo %s > OUT'",
        "sh -c \"echo '%s' > OUT\"",  # the user quoted %s themselves
        "bash -c 'echo \"%s\" > OUT'",
    ],
)
def test_shell_browser_entry_gets_the_address_quoted(tmp_path, monkeypatch, url, browser):
    monkeypatch.chdir(tmp_path)
    refused = any(ch in url for ch in "$'\"`\\")
    message = launch_and_wait(url, browser, str(tmp_path / "OUT"))
    if refused:
        assert message.startswith("Not opening the address through a shell in $BROWSER: it holds characters")
        assert not (tmp_path / "OUT").exists()  # refused for a shell entry: nothing launched
    else:
        assert message == "Opened the verification page in your browser."
        assert (tmp_path / "OUT").read_text() == url + "\n"  # arrived whole, as one word
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "<PWNED>").exists()


def test_browser_list_falls_through_to_the_next_entry(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    url = "https://auth.example.com/device"
    message = launch_and_wait(url, "/nonexistent/browser %s:sh -c 'echo %s > OUT'", str(tmp_path / "OUT"))
    assert message == "Opened the verification page in your browser."
    assert (tmp_path / "OUT").read_text() == url + "\n"


def test_no_usable_entry_says_so():
    message = open_url("https://auth.example.com/", {"DISPLAY": ":0", "BROWSER": "/nonexistent/a:/nonexistent/b"})
    assert message.startswith("Could not start the browser (")


@pytest.mark.parametrize(
    "uri",
    [
        "--gpu-launcher=touch PWNED",
        "javascript:alert(1)",
        "file:///etc/passwd",
    ],
)
async def test_wizard_shows_a_refused_address_inert_without_open_or_qr(server, uri, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setenv("BROWSER", "sh -c 'touch OPENED'")
    server.verification_uri_override = uri
    app = AssistantAuthApp()
    async with app.run_test(size=(120, 34)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: "will not be opened or drawn as a QR code" in screen_text(app))
        text = screen_text(app)
        assert uri in text  # shown, as text
        assert "will not be opened or drawn as a QR code" in text
        assert "Open browser" not in text  # not offered in the footer
        await pilot.press("o")
        await pilot.press("r")
        await wait_for(pilot, lambda: "No QR code for this address" in screen_text(app))
        assert not app.screen.query("#qr")
        await pilot.press("escape")
    assert not (tmp_path / "OPENED").exists() and not (tmp_path / "PWNED").exists()


async def test_qr_for_an_address_too_long_for_any_qr_code(server):
    server.verification_uri_override = "https://auth.example.com/" + "a" * 5000
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        await pilot.press("r")
        await wait_for(pilot, lambda: "too long for a QR code" in screen_text(app))
        assert not app.screen.query("#qr")
