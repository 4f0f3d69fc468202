"""Attacks on the sign-in records: a record planted by another user (or in a directory others
can write) is never followed and doctor removes it; a wrong-typed field, a link at the lease or
at the directory never reach "unexpected error"; a code's own lifetime ends the wait."""

from __future__ import annotations

import json
import os
import time

from tests.cli.test_cli import run
from tests.conftest import needs_root
from tests.waiting import PATIENCE
from tui.core.signin import follow
from tui.core.spec.regions import Region
from tui.demo.server import DEVICE_PATH, TOKEN_PATH


def planted(home, **changes) -> dict:
    """A pending record holding someone else's device code."""
    now = time.time()
    record = {
        "version": 2,
        "state": "pending",
        "region": "cn",
        "attempt": "p1",
        "started_at": now,
        "deadline": now + 600,
        "device_code": "planted-device-code",
        "user_code": "PLAN-TED1",
        "interval": 1,
        "polls": 0,
        "slow_downs": 0,
        "detached": True,
        **changes,
    }
    directory = home / "signin"
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    (directory / "cn.json").write_text(json.dumps(record))
    os.chmod(directory / "cn.json", 0o600)
    return record


def approve_when_asked(server, timeout: float = PATIENCE) -> None:
    deadline = time.monotonic() + timeout
    while not server.grants():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    server.approve(server.grants()[-1].user_code)


@needs_root
def test_another_users_record_is_never_followed_and_doctor_removes_it(home, server):
    planted(home)
    os.chown(home / "signin" / "cn.json", 65534, 65534)
    os.chmod(home / "signin" / "cn.json", 0o666)
    server.auto_approve = 0.5
    done = run("login", "--no-tui")
    assert done.returncode == 0, done.stderr
    assert "Following the sign-in" not in done.stderr
    assert "cannot be followed from another terminal" in done.stderr and "belongs to another user" in done.stderr
    assert server.count(DEVICE_PATH) == 1
    assert all(r.form.get("device_code") != "planted-device-code" for r in server.requests(TOKEN_PATH))
    report = json.loads(run("doctor", "--offline", "--report").stdout)
    check = next(c for c in report["checks"] if c["name"] == "files.signin.cn.json")
    assert check["status"] == "fail" and "belongs to uid 65534" in check["finding"]
    assert "files.signin.cn" not in {c["name"] for c in report["checks"]}  # never "waiting for approval"
    fixed = run("doctor", "--fix", "--yes", "--offline", timeout=90)
    assert "removed" in fixed.stdout + fixed.stderr
    assert not (home / "signin" / "cn.json").exists()  # removed, never chmod-ed


def test_a_directory_others_can_write_is_never_followed(home, server):
    planted(home)
    os.chmod(home / "signin", 0o777)
    server.auto_approve = 0.5
    done = run("login", "--no-tui")
    assert done.returncode == 0, done.stderr
    assert "Following the sign-in" not in done.stderr and "writable by others" in done.stderr
    assert all(r.form.get("device_code") != "planted-device-code" for r in server.requests(TOKEN_PATH))
    report = json.loads(run("doctor", "--offline", "--report").stdout)
    check = next(c for c in report["checks"] if c["name"] == "files.signin")
    assert check["status"] == "fail" and check["repair"]


async def test_a_wrong_typed_field_in_our_record_is_ignored(home, server):
    from tui.core.signin.attempt import SignIn

    attempt = SignIn(Region.CN)
    await attempt.request_code()
    attempt.shared.lease.release()  # its poller died
    path = home / "signin" / "cn.json"
    data = json.loads(path.read_text())
    data["polls"] = "x"
    path.write_text(json.dumps(data))
    assert follow.read(Region.CN).polls == 0
    server.approve(attempt.user_code)
    done = run("login", "--no-tui")
    assert done.returncode == 0 and "unexpected error" not in done.stderr
    # its poller died: this login polls it itself, and says so (#57 11: never "following" a dead terminal)
    assert "Resumed the sign-in started at" in done.stderr and server.count(DEVICE_PATH) == 1
    assert "Following" not in done.stderr


def test_a_link_at_the_directory_goes_on_without_the_record_and_says_what_to_remove(home, server, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home.mkdir(parents=True, exist_ok=True)
    (home / "signin").symlink_to(elsewhere)
    server.auto_approve = 0.5
    done = run("login", "--no-tui")
    assert done.returncode == 0, done.stderr
    assert "unexpected error" not in done.stderr
    said = [line for line in done.stderr.splitlines() if "cannot be followed from another terminal" in line]
    assert len(said) == 1 and "signin" in said[0] and "remove it" in said[0]
    assert list(elsewhere.iterdir()) == []


def test_a_link_at_the_lock_is_said_and_changes_nothing(home, server, tmp_path):
    """A link at `cn.lock`: the lease is `cn.lease`'s, the sign-in is followed as ever, the link
    is said in one line and never followed; `doctor --fix` removes the link itself."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (home / "signin").mkdir(parents=True, mode=0o700)
    (home / "signin" / "cn.lock").symlink_to(elsewhere / "cn.lock")
    server.auto_approve = 0.5
    done = run("login", "--no-tui")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "cn.lock" in line]
    assert len(said) == 1 and "is a symbolic link" in said[0] and "doctor --fix" in said[0]
    assert "cannot be followed" not in done.stderr
    assert list(elsewhere.iterdir()) == []
    fixed = run("doctor", "--fix", "--yes", "--offline", timeout=90)
    assert f"removed {home / 'signin' / 'cn.lock'}" in fixed.stdout + fixed.stderr
    assert not os.path.lexists(home / "signin" / "cn.lock") and list(elsewhere.iterdir()) == []


def test_the_codes_lifetime_ends_a_plain_login(home, server):
    """A server that keeps saying authorization_pending past a 3 s code: `login` stops at the
    code's deadline with "The code expired", exit 1."""
    server.device_ttl = 3
    server.expire_codes = False
    started = time.monotonic()
    done = run("login", "--no-tui")
    assert done.returncode == 1, done.stderr
    assert "The code expired" in done.stderr
    assert time.monotonic() - started < 15 and server.count(TOKEN_PATH) <= 4
    again = run("status")
    assert "waiting for approval" not in again.stdout
