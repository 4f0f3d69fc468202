"""Classes 2, 3, 5 and 6 of the hardening issue: tokens only to their own host, symlinks kept,
a device id that cannot carry a file's content, an empty refresh token that wipes nothing."""

from __future__ import annotations

import json
import os
import stat
import time

import pytest

from tests.commands import run_command
from tests.conftest import read_json, write_creds
from tui.core import (
    MANAGED_PROVIDER,
    AuthError,
    endpoints,
    get_access_token,
    poll_device_token,
    refresh_access_token,
    start_device_authorization,
)
from tui.core.credentials.refresh import read_valid_token
from tui.demo.server import DEVICE_PATH, TOKEN_PATH

# -- class 2: a fallen-back slot's refresh token never goes to a foreign host ------------------


@pytest.mark.parametrize("key", ["oauth/", ".hidden", "a/b", "oauth/../x", "oauth/a b"])
@pytest.mark.parametrize("call", ["get", "refresh", "read"])
async def test_invalid_key_with_a_foreign_host_is_refused_before_any_request(home, server, key, call):
    path = write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    before = path.read_bytes()
    foreign = f"http://localhost:{server.url.rsplit(':', 1)[1]}"  # the global host: not the slot's own
    ref = {"key": key, "oauthHost": foreign}
    with pytest.raises(AuthError) as info:
        if call == "get":
            await get_access_token(ref, endpoints("cn").base_url)
        elif call == "refresh":
            await refresh_access_token(ref, endpoints("cn").base_url)
        else:
            read_valid_token(ref, endpoints("cn").base_url)
    assert str(info.value) == f"Invalid OAuth token key: {key}"
    assert server.count(TOKEN_PATH) == 0 and path.read_bytes() == before


async def test_invalid_key_with_the_default_host_keeps_the_spec_fallback(home, server):
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    token = await get_access_token({"key": "oauth/", "oauthHost": endpoints("cn").oauth_host}, "https://any.test")
    assert token == server.issued[-1][0]


def test_cli_names_the_provider_whose_key_is_invalid(home, server):

    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    foreign = f"http://localhost:{server.url.rsplit(':', 1)[1]}"
    (home / "config.toml").write_text(
        f'[providers.mine]\nbase_url = "https://x.test"\noauth = {{ key = "a/b", oauthHost = "{foreign}" }}\n'
    )
    for command in (["token", "--provider", "mine"], ["refresh", "--provider", "mine"]):
        done = run_command([*command])
        lines = done.stderr.splitlines()
        assert done.returncode == 1 and lines[0] == "Invalid OAuth token key: a/b", done.stderr
        assert "provider mine" in lines[1]
    assert server.count(TOKEN_PATH) == 0


# -- class 3: symlinked files are written through, links kept ----------------------------------


async def test_refresh_writes_through_a_symlinked_credential_file(home, server, tmp_path):
    shared = tmp_path / "dotfiles" / "assistant-code.json"
    shared.parent.mkdir()
    shared.write_text(json.dumps({**server.issue_tokens(), "expires_at": 1, "kept": "yes"}))
    (home / "credentials").mkdir(parents=True)
    link = home / "credentials" / "assistant-code.json"
    os.symlink(shared, link)
    token = await get_access_token(None, endpoints("cn").base_url)
    assert os.path.islink(link) and os.readlink(link) == str(shared)
    saved = read_json(shared)
    assert saved["access_token"] == token and saved["refresh_token"] == server.issued[-1][1] and saved["kept"] == "yes"
    assert stat.S_IMODE(shared.stat().st_mode) == 0o600
    assert not [p for p in shared.parent.iterdir() if p.name.endswith(".tmp")]


async def test_sign_in_writes_through_symlinked_credentials_and_config(home, server, tmp_path):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "config.toml").write_text("# mine\n[general]\ntheme = 'dark'\n")
    (dotfiles / "creds.json").write_text("{}")
    (home / "credentials").mkdir(parents=True)
    os.symlink(dotfiles / "config.toml", home / "config.toml")
    os.symlink(dotfiles / "creds.json", home / "credentials" / "assistant-code.json")
    server.auto_approve = 0.0
    auth = await start_device_authorization("cn")
    assert (await poll_device_token(auth.device_code, 1, "cn")).status == "success"
    assert os.path.islink(home / "config.toml") and os.path.islink(home / "credentials" / "assistant-code.json")
    assert read_json(dotfiles / "creds.json")["access_token"] == server.issued[-1][0]
    text = (dotfiles / "config.toml").read_text()
    assert text.startswith("# mine\n[general]\ntheme = 'dark'\n") and MANAGED_PROVIDER in text


# -- class 5: the device id -----------------------------------------------------------------


def device_header(server) -> str | None:
    return server.requests(DEVICE_PATH)[-1].headers.get("X-Vendor-Device-Id")


async def sign_in_request(server) -> None:
    await start_device_authorization("cn")


@pytest.mark.parametrize(
    "content",
    [
        b"x" * 200_000,  # would make every sign-in fail with HTTP 431
        b"line one\nline two\n",
        b"\x1b[2Jbinary\x00\xff",
        b"y" * 129,
    ],
)
async def test_unusable_device_id_file_is_ignored_not_sent_not_rewritten(home, server, content):
    home.mkdir(parents=True)
    (home / "device_id").write_bytes(content)
    await sign_in_request(server)
    assert device_header(server) is None
    assert (home / "device_id").read_bytes() == content


async def test_device_id_symlink_never_sends_the_target(home, server, tmp_path):
    secret = tmp_path / ".env"
    secret.write_text("API_KEY=sk-live-123\n")
    empty = tmp_path / "empty"
    empty.write_text("")
    home.mkdir(parents=True)
    for target in (secret, empty):
        os.symlink(target, home / "device_id")
        await sign_in_request(server)
        assert device_header(server) is None
        os.unlink(home / "device_id")
    assert secret.read_text() == "API_KEY=sk-live-123\n" and empty.read_text() == ""  # never overwritten


async def test_device_id_fifo_does_not_hang(home, server):
    home.mkdir(parents=True)
    os.mkfifo(home / "device_id")
    started = time.monotonic()
    await sign_in_request(server)
    assert time.monotonic() - started < 5 and device_header(server) is None


async def test_device_id_is_created_private_and_reported_when_unusable(home, server):
    from tui.core.files.identity import read_device_id

    await sign_in_request(server)
    assert device_header(server).startswith("assistant-auth-")
    assert stat.S_IMODE((home / "device_id").stat().st_mode) == 0o600
    (home / "device_id").write_text("a\nb\n")
    value, problem = read_device_id()
    assert value is None and "ignored" in problem

    done = run_command(["status"])
    assert f"warning: {home / 'device_id'} holds more than one line" in done.stdout


# -- class 6: an empty refresh_token in an answer keeps the stored one --------------------------


@pytest.mark.parametrize("answer", [{"refresh_token": ""}, {"refresh_token": None}, {}])
async def test_empty_refresh_token_in_answer_keeps_the_stored_one(home, server, answer):
    stored = {**server.issue_tokens(), "expires_at": 1}
    path = write_creds(home, stored)
    body = {"access_token": "AT-new-0123456789", "expires_in": 900, "token_type": "Bearer", **answer}
    server.inject(TOKEN_PATH, status=200, body=json.dumps(body))
    assert await get_access_token(None, endpoints("cn").base_url) == "AT-new-0123456789"
    assert read_json(path)["refresh_token"] == stored["refresh_token"]
