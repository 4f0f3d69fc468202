"""Hostile strings from servers, files and flags: rejected, or shown inert, never a path escape."""

from __future__ import annotations

import json
import os

import pytest

from tests.app.helpers import screen_name, screen_text, wait_for
from tests.commands import run_command
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.core import (
    AuthError,
    credentials_path,
    get_access_token,
    resolve_context,
    resolve_storage_name,
    start_device_authorization,
)
from tui.core.text.untrusted import clean, one_line
from tui.demo.server import DEVICE_PATH

HOSTILE_STRINGS = [
    "[@click=app.quit]quit[/]",
    "[link=https://evil.test]click me[/link]",
    "[bold red]loud[/]",
    "\x1b[2J\x1b[H",  # clear screen
    "\x1b]52;c;ZXZpbA==\x07",  # OSC 52: write the clipboard
    "\x1b]8;;https://evil.test\x1b\\link\x1b]8;;\x1b\\",  # OSC 8 hyperlink
    "\x9b31m",  # C1 CSI
    "abc\u202edcba",  # right-to-left override
    "\u2066isolate\u2069",
    "nul\x00byte",
    "\r\rcarriage",
]

HOSTILE_KEYS = [
    "..",
    "../x",
    "oauth/../../etc/passwd",
    "a/b",
    "oauth/a/b",
    "a\\b",
    "oauth/a\\b",
    ".hidden",
    "oauth/.hidden",
    "nul\x00",
    "oauth/nul\x00",
    "x" * 129,
    "oauth/" + "y" * 129,
    "ключ",
    "oauth/ключ",
    "emoji\U0001f511",
    "bidi\u202e",
    "tab\tkey",
    "new\nline",
    "",
    " ",
    "oauth/",
    "-",
    "oauth/-rf",
]


def test_clean_removes_every_control_sequence():
    for text in HOSTILE_STRINGS:
        cleaned = clean(text)
        assert not any(ord(c) < 32 and c not in "\n\t" for c in cleaned), repr(cleaned)
        assert not any(0x7F <= ord(c) <= 0x9F for c in cleaned)
        assert "\u202e" not in cleaned and "\u2066" not in cleaned


@pytest.mark.parametrize("key", HOSTILE_KEYS)
def test_hostile_storage_keys_are_rejected(key, home):
    with pytest.raises(AuthError) as info:
        resolve_storage_name(key)
    assert str(info.value) == f"Invalid OAuth token key: {key}"
    ctx = resolve_context({"key": key}, "https://x.test")  # a provider carrying it falls back
    if key.strip():
        assert ctx.storage_name == "assistant-code"
    else:  # a blank key is no key: the slot is derived from host and base (spec 4.5)
        assert ctx.storage_name.startswith("assistant-code-env-")
    assert credentials_path(ctx.storage_name).parent == home / "credentials"


@pytest.mark.parametrize(
    "host",
    [
        "http://auth.evil.test",
        "http://10.0.0.5",
        "http://[2001:db8::1]",
        "ftp://auth.test",
        "file:///etc/passwd",
        "auth.test",
    ],
)
async def test_refresh_token_never_sent_over_plain_http(home, server, host):
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    before = server.count()
    with pytest.raises(AuthError, match="^Refusing to send credentials to "):
        await get_access_token({"key": "oauth/assistant-code", "oauthHost": host}, "https://x.test")
    assert server.count() == before


async def test_sign_in_refuses_plain_http_host(monkeypatch):
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_CN", "http://auth.evil.test")
    with pytest.raises(
        AuthError, match="^Refusing to send credentials to http://auth.evil.test/api/oauth/device_authorization"
    ):
        await start_device_authorization("cn")


@pytest.mark.parametrize("hostile", HOSTILE_STRINGS)
def test_cli_output_is_inert(home, server, hostile):
    server.inject(
        DEVICE_PATH,
        status=200,
        body=json.dumps({"user_code": hostile, "device_code": "dc", "verification_uri": hostile}),
    )
    server.inject("/api/oauth/token", status=400, body=json.dumps({"error": "access_denied"}))
    result = run_command(["login", "--no-tui", "--json"], env=os.environ.copy())
    assert result.returncode == 1
    for stream in (result.stdout, result.stderr):
        assert "\x1b" not in stream and "\x9b" not in stream and "\u202e" not in stream and "\x07" not in stream
    assert f"Code:  {one_line(hostile)}" in result.stderr  # shown, as inert text


def test_cli_status_with_hostile_file_names_and_fields(home):
    write_creds(home, {"access_token": "AT-x", "\x1b[31mkey": "\x1b]0;title\x07"}, name="ok-name")
    (home / "credentials" / "\x1b[2Jevil.json").write_text("{bad")
    result = run_command(["status"], env=os.environ.copy())
    assert "\x1b" not in result.stdout + result.stderr
    assert "evil" in result.stdout


def test_cli_provider_name_is_only_a_lookup(home):
    for name in ("../../etc/passwd", "\x1b[2J", "[@click=app.quit]"):
        result = run_command(["token", "--provider", name], env=os.environ.copy())
        assert result.returncode == 2 and "No provider named" in result.stderr and "\x1b" not in result.stderr


async def test_inspector_shows_hostile_file_content_inert(home):
    fields = {
        "access_token": "AT-x",
        "[@click=app.quit]k[/]": "[link=https://evil.test]v[/link]",
        "esc": "\x1b[2J\u202eevil",
    }
    write_creds(home, fields)
    (home / "credentials" / "[@click=app.quit]x.json").write_text("{bad")
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        text = screen_text(app)
        assert "[@click=app.quit]k" in text and '"[link=https://evil.test]v[/link]"' in text
        assert "\x1b" not in text and "\u202e" not in text
        for _ in range(3):
            await pilot.click("#details")
            await pilot.click("#slots")
        # still the inspector, showing the same inert text: a live [@click=app.quit] would have quit
        assert screen_name(app) == "CredentialsScreen" and "[@click=app.quit]k" in screen_text(app)


async def test_provider_editor_shows_hostile_config_inert(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        '[providers."[@click=app.quit]evil[/]"]\nbase_url = "[link=https://evil.test]x[/link]"\n'
        'note = "\\u001b[2J\\u001b]52;c;ZXZpbA==\\u0007"\ntype = "[bold]t[/bold]"\n'
    )
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("p")
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen")
        text = screen_text(app)
        assert '[providers."[@click=app.quit]evil[/]"]' in text and "[bold]t[/b" in text
        assert "\x1b" not in text and "\x07" not in text
        await pilot.press("f2")
        await pilot.pause()
        raw = screen_text(app)
        assert "\x1b" not in raw and "[@click=app.quit]evil[/]" in raw
        await pilot.click("#form-title")
        # the editor is still there (a click on the header may open the palette over it)
        assert "ProvidersScreen" in [type(s).__name__ for s in app.screen_stack]
