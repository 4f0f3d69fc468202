"""Co-tenancy with the official clients: both lock protocols, raced by a separate process.

The competitor (`tests/official_client.py`) imports nothing of ours and follows each official
protocol as the co-tenancy issue states it. Every lock lives in the test's temporary home.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from tests.commands import run_command
from tests.conftest import default_signals, read_json, write_creds
from tests.waiting import PATIENCE, until_async
from tui.core import (
    AuthError,
    endpoints,
    get_access_token,
    poll_device_token,
    refresh_access_token,
)
from tui.core.credentials.locks import (
    LockUnavailable,
    acquire,
    dir_lock_path,
    flock_path,
    legacy_lock_path,
    reporting_to,
)
from tui.core.credentials.refresh import NO_REFRESH_TOKEN, revoked_hint
from tui.core.slots.state import REVOKED, slot_status
from tui.demo.server import TOKEN_PATH

OFFICIAL = pathlib.Path(__file__).resolve().parent.parent / "official_client.py"
SLOT = "assistant-code"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def cn_base() -> str:
    return endpoints("cn").base_url


def competitor(home, server, action="refresh", protocol="dir", seconds=0.0, say_read=False) -> subprocess.Popen:
    """The official client's lock protocol in a process of its own; `hold` with negative `seconds`
    keeps the lock until `release(proc)`; `say_read`: it says `read` once it has read the file,
    before it locks (`wait_read`)."""
    cmd = [sys.executable, str(OFFICIAL), action, str(seconds), "--protocol", protocol, "--home", str(home)]
    if say_read:
        cmd.append("--say-read")
    if server is not None:
        cmd += ["--token-url", endpoints("cn").oauth_host + TOKEN_PATH]
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def release(proc: subprocess.Popen) -> None:
    """A holder started with negative `seconds` lets go of the lock."""
    proc.stdin.close()


def said(proc: subprocess.Popen, word: str) -> None:
    """The competitor's next line is `word` (its stderr shown if it ended instead)."""
    line = proc.stdout.readline()
    assert line.strip() == word, (line, proc.stderr.read() if proc.poll() is not None else "")


def wait_read(proc: subprocess.Popen) -> None:
    said(proc, "read")


def wait_locked(proc: subprocess.Popen) -> None:
    said(proc, "locked")


def finish(proc: subprocess.Popen) -> dict:
    # read through the pipe objects, not communicate(): `wait_locked`'s readline may already hold
    # the result line in the text buffer (a holder of 0 s prints both at once), which communicate
    # (reading the raw descriptors) would never see
    out = proc.stdout.read()
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def refresh_requests(server) -> int:
    return server.count(TOKEN_PATH, grant_type="refresh_token")


def expired_session(home, server) -> pathlib.Path:
    return write_creds(home, {**server.issue_tokens(), "expires_at": 1})


@pytest.fixture
def race(server):
    """Rotating refresh tokens, slow answers, and a server that revokes the family on reuse."""
    server.refresh_delay = 0.8
    server.revoke_family_on_reuse = True
    return server


def assert_one_rotation(server, path, our_token, theirs: dict) -> None:
    assert refresh_requests(server) == 1
    assert not server.revoked_families  # no refresh token was ever used twice
    final = read_json(path)
    assert final["refresh_token"] == server.issued[-1][1]  # the file holds the last rotation
    assert final["access_token"] == server.issued[-1][0] == our_token
    assert theirs["access_sha"] == sha(final["access_token"])  # the competitor is live too
    assert final["expires_at"] > time.time() + 60 and isinstance(final["expires_at"], int)


# -- races: in every order, both protocols ---------------------------------------------------


@pytest.mark.parametrize("protocol", ["dir", "flock"])
async def test_we_refresh_first_the_official_client_adopts(home, race, protocol):
    path = expired_session(home, race)
    race.refresh_gate = threading.Event()  # our answer waits until the competitor has read the file
    ours = asyncio.create_task(get_access_token(None, cn_base()))
    try:
        await until_async(lambda: os.path.isdir(dir_lock_path(SLOT)))  # we hold every lock, request in flight
        proc = competitor(home, race, protocol=protocol, say_read=True)
        await asyncio.to_thread(wait_read, proc)  # it read the file before locking: the old token
    finally:
        race.refresh_gate.set()  # (a loaded machine once started it after our answer: it read the new one)
    token = await ours
    theirs = await asyncio.to_thread(finish, proc)
    assert theirs["outcome"] == "adopted"
    assert_one_rotation(race, path, token, theirs)


@pytest.mark.parametrize("protocol", ["dir", "flock"])
async def test_official_client_refreshes_first_we_adopt(home, race, protocol):
    path = expired_session(home, race)
    proc = competitor(home, race, protocol=protocol)
    await asyncio.to_thread(wait_locked, proc)  # it holds its lock and is refreshing
    token = await get_access_token(None, cn_base())
    theirs = await asyncio.to_thread(finish, proc)
    assert theirs["outcome"] == "refreshed"
    assert_one_rotation(race, path, token, theirs)


async def test_refresh_longer_than_the_stale_limit_keeps_the_lock_fresh(home, race):
    """A 6 s answer (beyond the official 5 s staleness): our mtime keeper stops a takeover."""
    race.refresh_delay = 6.0  # counted once the competitor has read the file and waits for the lock
    race.refresh_gate = threading.Event()
    path = expired_session(home, race)
    ours = asyncio.create_task(refresh_access_token(None, cn_base()))
    try:
        await until_async(lambda: os.path.isdir(dir_lock_path(SLOT)))
        proc = competitor(home, race, protocol="dir", say_read=True)
        await asyncio.to_thread(wait_read, proc)
    finally:
        race.refresh_gate.set()
    await ours
    theirs = await asyncio.to_thread(finish, proc)
    assert theirs["outcome"] == "adopted"  # the event itself: it never found our lock stale and took it over
    assert_one_rotation(race, path, ours.result(), theirs)


async def test_rotation_seen_while_waiting_is_refreshed_with_the_adopted_token(home, race, monkeypatch):
    """The file's refresh token changed while we waited and its access token is expired:
    refresh with the new refresh token, never with the one read before waiting."""
    path = expired_session(home, race)
    race.refresh_delay = 0.0
    holder = competitor(home, None, action="hold", protocol="flock", seconds=-1)  # until released
    await asyncio.to_thread(wait_locked, holder)
    waiting = threading.Event()
    real_try = acquire._try_flock

    def try_flock(fd: int) -> bool:
        taken = real_try(fd)
        if not taken:
            waiting.set()  # we have read the file and found the flock held
        return taken

    monkeypatch.setattr(acquire, "_try_flock", try_flock)
    ours = asyncio.create_task(get_access_token(None, cn_base()))
    assert await asyncio.to_thread(waiting.wait, 30)
    rotated = {**race.issue_tokens(), "expires_at": 1}
    write_creds(home, rotated)
    release(holder)
    token = await ours
    await asyncio.to_thread(finish, holder)
    sent = race.requests(TOKEN_PATH, grant_type="refresh_token")
    assert [r.form["refresh_token"] for r in sent] == [rotated["refresh_token"]]
    assert read_json(path)["access_token"] == token == race.issued[-1][0]


# -- the directory lock: stale takeover, bounded wait, reporting, release ---------------------


async def test_stale_directory_lock_is_taken_over(home, server):
    expired_session(home, server)
    lock = pathlib.Path(dir_lock_path(SLOT))
    lock.mkdir(parents=True)
    os.utime(lock, (time.time() - 10, time.time() - 10))  # no holder, older than 5 s
    assert await get_access_token(None, cn_base()) == server.issued[-1][0]
    assert refresh_requests(server) == 1 and not lock.exists()


async def test_fresh_directory_lock_without_holder_is_not_stolen(home, server, monkeypatch):
    monkeypatch.setenv("ASSISTANT_LOCK_TIMEOUT", "1")
    path = expired_session(home, server)
    before = path.read_bytes()
    lock = pathlib.Path(dir_lock_path(SLOT))
    lock.mkdir(parents=True)
    os.utime(lock, (time.time() - 3.5, time.time() - 3.5))  # 3.5 s old: not stale within our 1 s
    with pytest.raises(AuthError, match="Gave up after 1 s waiting for the lock directory"):
        await get_access_token(None, cn_base())
    assert refresh_requests(server) == 0 and path.read_bytes() == before and lock.is_dir()


@pytest.mark.parametrize("protocol", ["dir", "flock"])
async def test_lock_held_beyond_our_bound_fails_closed_with_a_clear_message(home, server, monkeypatch, protocol):
    monkeypatch.setenv("ASSISTANT_LOCK_TIMEOUT", "1")
    path = expired_session(home, server)
    before = path.read_bytes()
    holder = competitor(home, None, action="hold", protocol=protocol, seconds=-1)  # until our bound is past
    await asyncio.to_thread(wait_locked, holder)
    with pytest.raises(AuthError) as info:
        await get_access_token(None, cn_base())
    release(holder)
    text = str(info.value)
    assert text.startswith("Gave up after 1 s waiting for") and "nothing was sent" in text
    if protocol == "dir":
        assert dir_lock_path(SLOT) in text
    else:
        assert flock_path(SLOT) in text and f"held by process {holder.pid}" in text
    assert refresh_requests(server) == 0 and path.read_bytes() == before
    await asyncio.to_thread(finish, holder)


async def test_a_wait_over_a_second_says_what_it_waits_for(home, server):
    expired_session(home, server)
    holder = competitor(home, None, action="hold", protocol="dir", seconds=-1)  # until the wait is said
    await asyncio.to_thread(wait_locked, holder)
    said: list[str] = []
    with reporting_to(said.append):
        token = asyncio.create_task(get_access_token(None, cn_base()))
        await until_async(lambda: said)
        release(holder)
        await token
    await asyncio.to_thread(finish, holder)
    assert len(said) == 1 and said[0].startswith("Waiting for the lock directory ")
    assert dir_lock_path(SLOT) in said[0] and "(up to 30 s)" in said[0]
    assert refresh_requests(server) == 1


async def test_sign_in_waits_for_the_locks_and_never_drops_approved_tokens(home, server, monkeypatch):
    monkeypatch.setenv("ASSISTANT_LOCK_TIMEOUT", "1")  # the refresh bound does not apply to a sign-in
    server.auto_approve = 0.0
    from tui.core import start_device_authorization

    auth = await start_device_authorization("cn")
    holder = competitor(home, None, action="hold", protocol="dir", seconds=-1)  # until the wait is said
    await asyncio.to_thread(wait_locked, holder)
    said: list[str] = []
    with reporting_to(said.append):
        polling = asyncio.create_task(poll_device_token(auth.device_code, 1, "cn"))
        await until_async(lambda: said)
        release(holder)
        status = await polling
    await asyncio.to_thread(finish, holder)
    assert status.status == "success"
    assert read_json(home / "credentials" / f"{SLOT}.json")["access_token"] == server.issued[-1][0]
    assert said and "saving the sign-in" in said[0] and "up to" not in said[0]


async def test_cancelled_refresh_releases_every_lock(home, server):
    expired_session(home, server)
    server.refresh_gate = threading.Event()  # the answer waits for the test: the refresh is in flight at cancel
    task = asyncio.create_task(get_access_token(None, cn_base()))
    await until_async(lambda: os.path.isdir(dir_lock_path(SLOT)))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    server.refresh_gate.set()
    assert not os.path.exists(dir_lock_path(SLOT))
    holder = competitor(home, None, action="hold", protocol="flock", seconds=0)
    await asyncio.to_thread(wait_locked, holder)  # the flock is free again
    await asyncio.to_thread(finish, holder)


REFRESHER = textwrap.dedent(
    """
    import asyncio, sys
    from tui.core import get_access_token
    asyncio.run(get_access_token(None, sys.argv[1]))
    """
)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
async def test_signal_mid_refresh_removes_the_directory_lock(home, server, signum):
    expired_session(home, server)
    server.refresh_gate = threading.Event()  # the answer waits for the test: the signal lands mid-refresh
    proc = subprocess.Popen(
        [sys.executable, "-c", REFRESHER, cn_base()], stderr=subprocess.PIPE, preexec_fn=default_signals
    )
    try:
        await until_async(lambda: os.path.isdir(dir_lock_path(SLOT)))
        proc.send_signal(signum)
        server.refresh_gate.set()  # the answer comes after the signal, as a slow server's would
        await asyncio.to_thread(proc.wait, PATIENCE)
    finally:
        proc.kill()
        server.refresh_gate.set()
    assert not os.path.exists(dir_lock_path(SLOT))
    assert os.path.isfile(flock_path(SLOT))  # the flock file stays: it is never deleted


# -- files: symlinks, the legacy lock file, logout -------------------------------------------


async def test_no_lock_is_created_through_a_symlink(home, server, tmp_path):
    path = expired_session(home, server)
    target = tmp_path / "elsewhere"
    os.symlink(target, flock_path(SLOT))
    with pytest.raises(LockUnavailable, match="symbolic link"):
        await get_access_token(None, cn_base())
    assert not target.exists() and refresh_requests(server) == 0 and read_json(path)["expires_at"] == 1
    os.unlink(flock_path(SLOT))
    real_dir = tmp_path / "real-oauth"
    real_dir.mkdir()
    os.symlink(real_dir, home / "oauth")
    with pytest.raises(LockUnavailable, match="not a plain directory"):
        await get_access_token(None, cn_base())
    assert list(real_dir.iterdir()) == [] and refresh_requests(server) == 0


async def test_legacy_lock_file_is_removed_and_the_flock_file_kept(home, server):
    expired_session(home, server)
    legacy = pathlib.Path(legacy_lock_path(SLOT))
    legacy.write_text("")
    await get_access_token(None, cn_base())
    assert not legacy.exists() and os.path.isfile(flock_path(SLOT))
    assert os.path.isfile(home / "oauth" / SLOT)  # the official client's marker file


def test_logout_takes_the_locks_and_keeps_the_flock_file(home):
    from tui.core.signin.store import remove_signin

    write_creds(home, {"access_token": "a", "refresh_token": "r"})
    remove_signin(SLOT)
    assert not (home / "credentials" / f"{SLOT}.json").exists()
    assert os.path.isfile(flock_path(SLOT)) and not os.path.exists(dir_lock_path(SLOT))


# -- adopt after a rejected refresh ----------------------------------------------------------


def write_in_place_later(path: pathlib.Path, data: dict, delay: float) -> threading.Thread:
    """A tool that ignores locks (the official client on Windows) writes while we refresh."""

    def run() -> None:
        time.sleep(delay)
        with open(path, "w") as handle:
            handle.write(json.dumps(data))

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.parametrize(
    "status,body",
    [
        (400, '{"error": "invalid_grant"}'),
        (401, '{"error": "invalid_client"}'),
        (403, "forbidden"),
    ],
)
async def test_rejected_refresh_adopts_the_other_tools_rotation(home, server, status, body):
    path = expired_session(home, server)
    server.inject(TOKEN_PATH, status=status, body=body, delay=0.5)
    theirs = {**server.issue_tokens(), "expires_at": int(time.time()) + 900}
    writer = write_in_place_later(path, theirs, 0.2)
    token = await get_access_token(None, cn_base())
    writer.join()
    assert token == theirs["access_token"] and read_json(path) == theirs


@pytest.mark.parametrize(
    "theirs",
    [
        None,  # nobody wrote: the spec's failure
        "same-refresh-token",  # a different access token but our refresh token: not a rotation
        "expired",  # a rotation whose access token is already expired
    ],
)
async def test_rejected_refresh_without_a_live_rotation_fails_with_the_spec_text(home, server, theirs):
    mine = {**server.issue_tokens(), "expires_at": 1}
    path = write_creds(home, mine)
    server.inject(TOKEN_PATH, status=400, body='{"error": "invalid_grant"}', delay=0.4)
    written = mine
    if theirs == "same-refresh-token":
        written = {**mine, "access_token": "AT-other", "expires_at": int(time.time()) + 900}
    elif theirs == "expired":
        written = {**server.issue_tokens(), "expires_at": 1}
    writer = write_in_place_later(path, written, 0.1)  # lands while our refresh is in flight
    with pytest.raises(AuthError) as info:
        await get_access_token(None, cn_base())
    writer.join()
    assert str(info.value).startswith("login expired and refresh failed (HTTP 400): ")
    assert read_json(path) == written  # we never write a tombstone or anything else


# -- the tombstone ---------------------------------------------------------------------------


async def test_official_tombstone_is_shown_never_refreshed_and_replaced_by_sign_in(home, server):
    spent = server.issue_tokens()
    server._refresh_grant(spent["refresh_token"])  # rotated elsewhere: the file's token is spent
    path = write_creds(home, {**spent, "expires_at": 1})
    proc = competitor(home, server, protocol="dir")
    theirs = await asyncio.to_thread(finish, proc)
    assert theirs["outcome"] == "signed_out"
    assert read_json(path) == {"access_token": "", "refresh_token": "", "expires_at": 0}
    status = slot_status(SLOT)
    assert status.state == REVOKED and status.label == "signed out (revoked)" and not status.usable
    sent = refresh_requests(server)
    with pytest.raises(AuthError) as info:
        await get_access_token(None, cn_base())
    assert str(info.value) == NO_REFRESH_TOKEN and info.value.hint == revoked_hint(SLOT)
    with pytest.raises(AuthError):
        await refresh_access_token(None, cn_base())
    assert refresh_requests(server) == sent  # never a refresh for a tombstone
    server.auto_approve = 0.0
    from tui.core import start_device_authorization

    auth = await start_device_authorization("cn")
    assert (await poll_device_token(auth.device_code, 1, "cn")).status == "success"
    assert slot_status(SLOT).state == "valid"


def test_token_command_on_a_tombstone_prints_both_lines(home):
    write_creds(home, {"access_token": "", "refresh_token": "", "expires_at": 0})
    done = run_command(["token"], env=os.environ.copy())
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [NO_REFRESH_TOKEN, revoked_hint(SLOT)]


def test_status_shows_the_tombstone(home):
    write_creds(home, {"access_token": "", "refresh_token": "", "expires_at": 0})
    done = run_command(["status"])
    assert done.returncode == 1
    assert "* cn: signed out (revoked)" in done.stdout and "sign in again" in done.stdout  # led by the region
    assert "To sign in: assistant-auth login" in done.stdout


async def test_home_and_inspector_show_the_tombstone(home):
    from tests.app.helpers import screen_text, wait_for
    from tui.app import AssistantAuthApp

    write_creds(home, {"access_token": "", "refresh_token": "", "expires_at": 0})
    for start, expected in (("home", "Signed out (revoked)"), ("inspect", "signed out (revoked)")):
        app = AssistantAuthApp(start=start)
        async with app.run_test(size=(120, 34)) as pilot:
            await wait_for(pilot, lambda: expected in screen_text(app))
