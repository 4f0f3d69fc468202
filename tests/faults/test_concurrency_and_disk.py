"""The official CLI racing us, and disks that refuse writes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from tests.conftest import read_json, write_creds
from tui.core import AuthError, endpoints, get_access_token, poll_device_token
from tui.demo.server import TOKEN_PATH

OFFICIAL_CLI = textwrap.dedent(
    """
    import json, os, sys
    # the official tool writes the shared file its own way: in place, not atomically
    with open(sys.argv[1], "w") as handle:
        handle.write(sys.argv[2])
    """
)


def official_cli_writes(path, data: dict) -> None:
    subprocess.run([sys.executable, "-c", OFFICIAL_CLI, str(path), json.dumps(data)], check=True)


async def refresh_in_flight(server, timeout: float = 30.0) -> None:
    """Until the server has received our refresh (it answers after `refresh_delay`)."""
    deadline = time.monotonic() + timeout
    while server.count(TOKEN_PATH, "refresh_token") == 0:
        assert time.monotonic() < deadline, "the refresh never reached the server"
        await asyncio.sleep(0.01)


async def test_newer_token_from_official_cli_wins_and_no_refresh_token_is_lost(home, server):
    path = write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    server.refresh_gate = threading.Event()  # our refresh is answered once the official CLI has written
    task = asyncio.create_task(get_access_token(None, endpoints("cn").base_url))
    await refresh_in_flight(server)
    official = {**server.issue_tokens(), "expires_at": int(time.time()) + 900, "written_by": "official"}
    await asyncio.to_thread(official_cli_writes, path, official)
    server.refresh_gate.set()
    assert await task == official["access_token"]
    saved = read_json(path)
    assert saved == official  # not overwritten: the official CLI's refresh token is kept


async def test_expired_write_from_official_cli_is_merged_not_lost(home, server):
    path = write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    server.refresh_gate = threading.Event()
    task = asyncio.create_task(get_access_token(None, endpoints("cn").base_url))
    await refresh_in_flight(server)
    await asyncio.to_thread(official_cli_writes, path, {"access_token": "AT-stale", "expires_at": 1, "extra": "kept"})
    server.refresh_gate.set()
    token = await task
    saved = read_json(path)
    assert saved["access_token"] == token and saved["refresh_token"] == server.issued[-1][1]
    assert saved["extra"] == "kept"


@contextlib.contextmanager
def unwritable(directory):
    """A directory nobody can create files in, even root (chattr +i), or skip."""
    directory.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        os.chmod(directory, 0o500)
        try:
            yield
        finally:
            os.chmod(directory, 0o700)
        return
    done = subprocess.run(["chattr", "+i", str(directory)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot make a directory read-only as root here: {done.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(directory)], check=True)


async def test_sign_in_into_unwritable_credentials_dir(home, server):
    tokens = server.issue_tokens()
    server.inject(TOKEN_PATH, status=200, body=json.dumps(tokens))
    with unwritable(home / "credentials"):
        with pytest.raises(AuthError) as info:
            await poll_device_token("dc", 1, "cn")
    message = str(info.value)
    assert message.startswith("Failed to write credentials: ")
    assert tokens["access_token"] not in message and tokens["refresh_token"] not in message


async def test_refresh_into_unwritable_dir_is_never_sent(home, server):
    """(Was spec 4.3 step 5's letter: a write failure only logged, the rotated token lost. Safety
    wins, as the README says: the answer's room is proved first, and nothing is sent.)"""
    path = write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    (home / "credentials" / "assistant-code.lock").touch(mode=0o600)
    before = path.read_bytes()
    with unwritable(home / "credentials"):
        with pytest.raises(AuthError, match="nothing was sent, your sign-in is kept") as info:
            await get_access_token(None, endpoints("cn").base_url)
    assert info.value.transient
    assert path.read_bytes() == before and server.count(TOKEN_PATH) == 0


async def test_refresh_without_a_lock_file_fails_closed(home, server):
    """No lock can be created: no refresh (its rotated token could not be kept either)."""
    path = write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    before = path.read_bytes()
    with unwritable(home / "credentials"):
        with pytest.raises(
            AuthError, match="^Cannot create the lock file .*assistant-code.lock: .*; nothing was sent$"
        ):
            await get_access_token(None, endpoints("cn").base_url)
    assert path.read_bytes() == before and server.count(TOKEN_PATH) == 0


async def test_credential_path_is_a_directory(home, server):
    (home / "credentials" / "assistant-code.json").mkdir(parents=True)
    server.inject(TOKEN_PATH, status=200, body=json.dumps(server.issue_tokens()))
    with pytest.raises(AuthError, match="^Failed to write credentials: "):
        await poll_device_token("dc", 1, "cn")
    assert (home / "credentials" / "assistant-code.json").is_dir()
    assert not [p for p in (home / "credentials").iterdir() if p.name.endswith(".tmp")]


DISK_FULL = textwrap.dedent(
    """
    import asyncio, json, resource, signal, sys
    from tui.core import AuthError, get_access_token, persist_device_signin
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
    mode = sys.argv[1]
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
    if mode == "sign-in":
        try:
            persist_device_signin(json.loads(sys.argv[2]), "cn")
        except AuthError as exc:
            print(exc)
    else:
        print(asyncio.run(get_access_token(None, sys.argv[2])))
    """
)


def test_disk_full_sign_in_reports_and_keeps_old_file(home, server):
    path = write_creds(home, {"access_token": "AT-old", "refresh_token": "RT-old"})
    before = path.read_bytes()
    tokens = server.issue_tokens()
    result = subprocess.run(
        [sys.executable, "-c", DISK_FULL, "sign-in", json.dumps(tokens)],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    assert result.stdout.strip() == "Failed to write credentials: File too large"
    assert path.read_bytes() == before
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_disk_full_refresh_is_never_sent(home, server):
    """(Was: the token was printed although the rotation could not be stored, and the next call
    spent the old refresh token. Hardening round 4: room for the answer is proved first.)"""
    path = write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    before = path.read_bytes()
    issued = len(server.issued)
    result = subprocess.run(
        [sys.executable, "-c", DISK_FULL, "refresh", endpoints("cn").base_url],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
    )
    assert result.returncode != 0 and "nothing was sent, your sign-in is kept" in result.stderr
    assert "File too large" in result.stderr
    assert len(server.issued) == issued and server.count(TOKEN_PATH) == 0
    assert path.read_bytes() == before
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
