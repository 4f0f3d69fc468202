"""Run every flow and search all output for the secrets: tokens and device codes, zero hits."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import time

import pytest

from tests.app.helpers import answer, screen_name, wait_for
from tests.commands import run_command
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.demo.server import DEVICE_PATH, TOKEN_PATH, Fault


def cli(*args: str) -> subprocess.CompletedProcess:
    return run_command(args, env=os.environ.copy())


def secrets_of(server) -> set[str]:
    found = set()
    for access, refresh in server.issued:
        found |= {access, refresh}
    for grant in server.grants():
        found.add(grant.device_code)
    return found


async def test_no_secret_in_any_output(home, server, caplog):
    caplog.set_level(logging.DEBUG)
    collected: list[str] = []
    server.auto_approve = 0.5

    # CLI: sign-in, verbose sign-in, status, refresh, error paths (all with -v)
    for args in (("-v", "login", "--no-tui", "--json"), ("-v", "login", "--no-tui", "--region", "global")):
        result = cli(*args)
        assert result.returncode == 0, result.stderr
        collected += [result.stdout, result.stderr]
    for args in (("-v", "status"), ("status", "--json"), ("-v", "refresh"), ("-v", "refresh", "--json")):
        result = cli(*args)
        collected += [result.stdout, result.stderr]
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    cn_slot = ("--base-url", os.environ["ASSISTANT_BASE_URL_CN"])  # the default slot, not the managed (global) one
    token_run = cli("-v", "token", *cn_slot)  # stdout is the token itself: only stderr is searched
    assert token_run.returncode == 0
    collected.append(token_run.stderr)
    tokens = server.issue_tokens()
    write_creds(
        home, {"access_token": tokens["access_token"], "refresh_token": tokens["refresh_token"], "expires_at": 1}
    )
    for fault in (
        Fault(status=400, body=json.dumps({"error": "invalid_grant", "echo": tokens["refresh_token"]})),
        Fault(
            status=500,
            body=f"internal error for {tokens['access_token']} / {tokens['refresh_token']}",
            content_type="text/plain",
        ),
        Fault(status=200, body=json.dumps({"refresh_token": tokens["refresh_token"]})),
        Fault(mode="reset"),
    ):
        server.inject(TOKEN_PATH, fault)
        result = cli("-v", "token", *cn_slot)
        assert result.returncode == (3 if fault.status == 500 or fault.mode == "reset" else 1), result.stdout
        collected += [result.stdout, result.stderr]
    server.inject(DEVICE_PATH, status=500, body='{"device_code": "dc_echoed_secret_value_123"}')
    result = cli("-v", "login", "--no-tui", "--force")
    collected += [result.stdout, result.stderr]
    server.inject(TOKEN_PATH, status=418, body='{"error": "teapot", "device_code": "dc_echoed_again_456"}')
    result = cli("-v", "login", "--no-tui", "--force")
    collected += [result.stdout, result.stderr]

    # TUI: every screen's rendered text, with a fresh session on disk
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(120, 40)) as pilot:
        collected.append(app.export_screenshot())
        await pilot.press("enter")  # the session still works: the wizard asks (another account, or again)
        await wait_for(pilot, lambda: screen_name(app) == "AccountChoiceScreen")
        collected.append(app.export_screenshot())
        server.auto_approve = None  # approved below, once the code screen is captured: never skipped under load
        await pilot.click("#again")  # no letter starts a sign-in in that dialog
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen" and app.screen.auth is not None)
        collected.append(app.export_screenshot())
        server.approve(app.screen.auth.user_code)
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        collected.append(app.export_screenshot())
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        collected.append(app.export_screenshot())
        await answer(pilot, "r", "y")
        await pilot.pause(1.0)
        collected.append(app.export_screenshot())
        await pilot.press("escape", "p")
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen")
        collected.append(app.export_screenshot())
        await pilot.press("f2")
        await pilot.pause()
        collected.append(app.export_screenshot())

    collected += [record.getMessage() for record in caplog.records]
    everything = "\n".join(collected)
    secrets = secrets_of(server) | {"dc_echoed_secret_value_123", "dc_echoed_again_456"}
    assert len(secrets) >= 10
    leaks = sorted(s for s in secrets if s in everything)
    assert leaks == []
    # and the redacted excerpts still say what went wrong
    assert "[redacted]" in everything and "Token polling error (teapot)" in everything


def test_files_are_private_from_creation_even_with_umask_000(home, server):
    old = os.umask(0)
    try:
        from tui.core import device_id, persist_device_signin

        persist_device_signin(server.issue_tokens(), "cn")
        device_id()
        import asyncio

        from tui.core import endpoints, get_access_token

        write_creds(home, {**server.issue_tokens(), "expires_at": 1})
        asyncio.run(get_access_token(None, endpoints("cn").base_url))
    finally:
        os.umask(old)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "credentials").stat().st_mode) == 0o700
    for path in (home / "credentials").iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE((home / "config.toml").stat().st_mode) == 0o600


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_temp_file_is_never_readable_by_others(tmp_path, umask):
    """Watch the directory while writing: no moment where a file in it is group/other readable."""
    from tui.core.files.atomic import atomic_write

    seen_modes = []
    real_write = os.write

    def spying_write(fd, data):
        for entry in tmp_path.iterdir():
            seen_modes.append(stat.S_IMODE(entry.stat().st_mode))
        return real_write(fd, data)

    old = os.umask(umask)
    try:
        os.write = spying_write
        atomic_write(tmp_path / "secret.json", b'{"access_token": "x"}', mode=0o600)
    finally:
        os.write = real_write
        os.umask(old)
    assert seen_modes and all(mode & 0o077 == 0 for mode in seen_modes)
