"""Odd lock states never hang the tool: a lock stamped in the future is stale, a file or a link
where the lock directory belongs fails at once with what to do, a foreign one says whose it is."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from tests.commands import run_command
from tests.conftest import needs_root, read_json, write_creds
from tui.core.credentials.locks import DirLockState, dir_lock_state, is_stale
from tui.core.doctor import apply_repair, local_checks

YEAR = 365 * 86400


def run(*args: str, timeout: float = 60, **env: str) -> subprocess.CompletedProcess:
    return run_command(args, timeout=timeout, env={**os.environ, **env})


def lock_path(home):
    return home / "oauth" / "assistant-code.lock"


def expired_session(home, server):
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})


@pytest.mark.parametrize("age, stale", [(0, False), (4, False), (6, True), (-3, False), (-6, True), (-YEAR, True)])
def test_the_staleness_rule(age, stale):
    assert is_stale(age) is stale


def test_a_lock_stamped_a_year_ahead_does_not_block_a_refresh(home, server):
    expired_session(home, server)
    lock = lock_path(home)
    lock.mkdir(parents=True)
    os.utime(lock, (time.time() + YEAR,) * 2)
    started = time.monotonic()
    done = run("token", ASSISTANT_LOCK_TIMEOUT="30")
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 10
    assert len(server.refreshes()) == 1
    assert read_json(home / "credentials" / "assistant-code.json")["access_token"] == done.stdout.strip()


def test_doctor_shows_a_future_lock_honestly_and_clears_it(home):
    lock = lock_path(home)
    lock.mkdir(parents=True)
    os.utime(lock, (time.time() + YEAR,) * 2)
    check = {c.name: c for c in local_checks()}["files.lock.oauth.assistant-code.lock"]
    assert check.status == "warn" and "365 days in the future" in check.finding
    assert "-3153" not in check.finding  # never "renewed -31535996 s ago"
    apply_repair(check)
    assert check.repaired and not lock.exists()


@pytest.mark.parametrize("kind", ["file", "link"])
def test_a_file_or_link_where_the_lock_belongs_fails_at_once(home, server, tmp_path, kind):
    expired_session(home, server)
    lock = lock_path(home)
    lock.parent.mkdir(parents=True)
    if kind == "file":
        lock.write_text("")
    else:
        target = tmp_path / "elsewhere"
        target.mkdir()
        lock.symlink_to(target)
    started = time.monotonic()
    done = run("token", ASSISTANT_LOCK_TIMEOUT="30")
    assert time.monotonic() - started < 10  # never the 30 s wait, never an endless one
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "not a lock directory" in done.stderr and "doctor --fix" in done.stderr
    assert server.refreshes() == []  # nothing was sent
    state = dir_lock_state(str(lock))
    assert state.kind == (DirLockState.NOT_DIR if kind == "file" else DirLockState.LINK)
    check = {c.name: c for c in local_checks()}["files.lock.oauth.assistant-code.lock"]
    assert check.status == "fail"
    if kind == "file":  # an empty file holds nothing: doctor removes it, and the refresh works
        apply_repair(check)
        assert check.repaired and not lock.exists()
        assert run("token").returncode == 0
    else:
        assert check.repair is None and str(target) in check.finding
        assert target.is_dir()


def test_an_approved_sign_in_is_not_left_waiting_on_a_file_lock(home, server):
    lock_path(home).parent.mkdir(parents=True)
    lock_path(home).write_text("")
    server.auto_approve = 0.5
    started = time.monotonic()
    done = run("login", "--no-tui", timeout=60)
    assert time.monotonic() - started < 30
    assert done.returncode == 2 and "Failed to write credentials: Refusing to lock" in done.stderr


@needs_root
def test_a_held_lock_of_another_user_names_its_owner(home, server):
    expired_session(home, server)
    lock = lock_path(home)
    lock.mkdir(parents=True)
    os.chown(lock, 65534, 65534)
    stop = time.time() + 30

    def renew():
        while time.time() < stop and lock.exists():
            os.utime(lock)
            time.sleep(0.5)

    import threading

    renewer = threading.Thread(target=renew, daemon=True)
    renewer.start()
    try:
        done = run("token", ASSISTANT_LOCK_TIMEOUT="1.5")
    finally:
        stop = 0
    assert done.returncode == 3 and "Gave up after 1.5 s" in done.stderr  # held: try again later
    check = {c.name: c for c in local_checks()}["files.lock.oauth.assistant-code.lock"]
    assert "uid 65534" in check.finding


@needs_root
def test_a_stale_lock_of_another_user_is_taken_over(home, server):
    expired_session(home, server)
    lock = lock_path(home)
    lock.mkdir(parents=True)
    os.chown(lock, 65534, 65534)
    os.utime(lock, (time.time() - 60,) * 2)
    done = run("token", ASSISTANT_LOCK_TIMEOUT="10")
    assert done.returncode == 0, done.stderr
    assert json.loads((home / "credentials" / "assistant-code.json").read_text())["access_token"] == done.stdout.strip()
