"""Issue #37.1 and #37.2: what sits in `signin/` is checked for what it is, by one reader
(`tui.core.signin.place`), and every role's wait ends at the code's deadline.

An entry of the wrong kind at any of a region's names (a directory, a FIFO, a socket, a link)
never changes what a sign-in does: the lease still excludes, no discard is read into it, no
record is followed through it; `login` and `status` say it in one line, `doctor` reports it as
a failure and `doctor --fix` removes it through the repair primitive. A record says only what
its file may: its region is its file's, every number is bounded."""

from __future__ import annotations

import json
import os
import signal
import socket
import time

import pytest
from hypothesis import given, settings, strategies as st

from tests.cli.test_cli import run
from tests.cli.test_login_join import Login, until
from tests.core.signin.test_follow import FIELDS, JSON
from tui.core.doctor import apply_repair
from tui.core.doctor.signin_records import check_signin_records
from tui.core.signin import follow, shown
from tui.core.signin.attempt import SignIn
from tui.core.signin.follow import Lease, Role
from tui.core.signin.place import SUFFIXES, odd
from tui.core.signin.record import LATEST, LONGEST, Record
from tui.core.spec.regions import Region
from tui.demo.server import DEVICE_PATH, TOKEN_PATH

KINDS = ["directory", "fifo", "socket", "link"]


def make(path, kind: str, elsewhere) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path, 0o600)
    elif kind == "socket":
        with socket.socket(socket.AF_UNIX) as bound:
            bound.bind(str(path))
    else:
        path.symlink_to(elsewhere)


# -- every kind of entry at every name ---------------------------------------------------------------


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("kind", KINDS)
def test_an_entry_of_the_wrong_kind_changes_nothing_and_doctor_removes_it(home, tmp_path, kind, suffix):
    elsewhere = tmp_path / "elsewhere"
    path = home / "signin" / f"cn{suffix}"
    make(path, kind, elsewhere)
    first, second = Lease(Region.CN), Lease(Region.CN)
    assert follow.join(first).role is Role.LEAD  # the lease still works…
    assert follow.join(second).role is Role.FOLLOW  # …and still excludes
    assert not follow.discard_requested(Region.CN)  # nothing at the discard name asks anything
    assert follow.load(Region.CN) is None or follow.load(Region.CN).attempt  # no record through it
    first.release()
    follow.abandon(Region.CN)  # never waits on a FIFO
    lines = [str(line) for line in odd(Region.CN)]
    assert len(lines) == 1 and str(path) in lines[0] and "doctor --fix" in lines[0]
    assert not elsewhere.exists()
    failing = [c for c in check_signin_records() if c.status == "fail"]
    assert [c.name for c in failing] == [f"files.signin.cn{suffix}"] and failing[0].repair is not None
    apply_repair(failing[0])
    assert "removed" in str(failing[0].repaired), failing[0].repair_failed
    assert not os.path.lexists(path) and not elsewhere.exists()
    assert odd(Region.CN) == []


def test_a_directory_with_files_in_it_is_left_for_the_person(home):
    path = home / "signin" / "cn.discard"
    path.mkdir(parents=True)
    (path / "notes").write_text("mine")
    check = next(c for c in check_signin_records() if c.status == "fail")
    with pytest.raises(Exception, match="files in it"):
        check.repair.apply()
    assert (path / "notes").read_text() == "mine"


def test_a_replaced_entry_is_not_removed(home):
    path = home / "signin" / "cn.discard"
    path.mkdir(parents=True)
    check = next(c for c in check_signin_records() if c.status == "fail")
    path.rmdir()
    os.mkfifo(path)  # another object of another kind since the check
    with pytest.raises(Exception, match="gone or was replaced"):
        check.repair.apply()
    assert os.path.lexists(path)


def test_a_directory_at_the_discard_name_discards_nothing(home, server):
    """It ended every `login` with "Sign-in discarded in another terminal"."""
    (home / "signin" / "cn.discard").mkdir(parents=True)
    server.auto_approve = 0.5
    done = run("login", "--no-tui")
    assert done.returncode == 0, done.stderr
    assert "discarded" not in done.stderr.lower()
    assert [line for line in done.stderr.splitlines() if "cn.discard" in line and "is a directory" in line]
    status = run("status")
    assert [line for line in status.stdout.splitlines() if "cn.discard" in line and "doctor --fix" in line]
    assert json.loads(run("status", "--json").stdout)["signin_entries_ignored"]
    fixed = run("doctor", "--fix", "--yes", "--offline", timeout=90)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert not (home / "signin" / "cn.discard").exists()
    assert "cn.discard" not in run("status").stdout


def test_a_fifo_at_the_lock_keeps_the_lease(home, server, tmp_path):
    """It silently turned the lease off: four logins made four device authorizations."""
    make(home / "signin" / "cn.lock", "fifo", None)
    logins = [Login(tmp_path, n) for n in range(4)]
    until(lambda: all("Code:" in login.said for login in logins))
    server.approve(server.grants()[-1].user_code)
    assert [login.end() for login in logins] == [0, 0, 0, 0], [login.said for login in logins]
    assert server.count(DEVICE_PATH) == 1
    assert all("cn.lock is a FIFO" in login.said for login in logins)


# -- what a record may say ---------------------------------------------------------------------------


def pending(region: str, **changes) -> dict:
    now = time.time()
    return {
        "version": 2,
        "state": "pending",
        "region": region,
        "attempt": "p1",
        "started_at": now,
        "deadline": now + 600,
        "device_code": "planted-device-code",
        "user_code": "CNCN-CODE",
        "interval": 1,
        "poller_pid": 1,
        **changes,
    }


def plant(home, name: str, record: dict) -> None:
    directory = home / "signin"
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    (directory / name).write_text(json.dumps(record))
    os.chmod(directory / name, 0o600)


def test_a_record_of_another_region_in_a_regions_file_is_none(home, server):
    """`global.json` saying "cn": the cn code was shown and its device code sent to the global
    host, the answer saved as the global sign-in."""
    plant(home, "global.json", pending("cn"))
    assert follow.read(Region.GLOBAL) is None and shown.waiting() == []
    status = run("status")
    assert "waiting for approval" not in status.stdout
    server.auto_approve = 0.5
    done = run("login", "--no-tui", "--region", "global")
    assert done.returncode == 0, done.stderr
    assert "CNCN-CODE" not in done.stderr and "Following" not in done.stderr
    assert all(r.form.get("device_code") != "planted-device-code" for r in server.requests(TOKEN_PATH))
    assert not (home / "signin" / "cn.json").exists()
    assert "waiting for approval" not in run("status").stdout


@pytest.mark.parametrize("field", ["started_at", "deadline", "last_poll", "ended_at"])
@pytest.mark.parametrize("value", [1e300, -1.0, 2**70, 1e19])
def test_a_date_no_clock_can_show_is_dropped(home, server, field, value):
    """`started_at: 1e300` made `status` and `login` exit 2 with an OverflowError."""
    plant(home, "cn.json", pending("cn", **{field: value}))
    record = follow.read(Region.CN)
    if record is not None:
        record.started_clock()
        assert 0 <= record.started_at <= LATEST and record.deadline <= record.started_at + LONGEST
    for args in (("status",), ("status", "--json"), ("doctor", "--offline")):
        done = run(*args)
        assert "unexpected error" not in done.stderr and done.returncode in (0, 1), (args, done.stderr)


field_values = {  # the fields a record is dated and named by, drawn near what they may be
    "state": st.sampled_from(["requesting", "pending", "ended"]) | JSON,
    "region": st.sampled_from(["cn", "global"]) | JSON,
    "started_at": st.floats() | st.integers() | JSON,
}


@settings(max_examples=200, deadline=None)  # 12 s on a quiet machine at 400
@given(
    data=st.fixed_dictionaries({}, optional={name: field_values.get(name, JSON) for name in FIELDS}) | JSON,
    region=st.sampled_from(list(Region)),
)
def test_the_reader_takes_only_what_a_record_may_say(data, region):
    record = Record.parse(data, region)
    if record is None:
        return
    assert record.region is region
    assert 0 <= record.started_at <= LATEST and record.deadline <= record.started_at + LONGEST
    for moment in (record.deadline, record.last_poll, record.ended_at):
        assert moment is None or 0 <= moment <= LATEST
    assert 0 <= record.polls < 2**31 and 0 <= record.slow_downs < 2**31
    assert record.interval is None or 0 < record.interval < 3600
    record.started_clock()
    record.is_live()
    again = Record.parse(json.loads(json.dumps(record.to_json())), region)
    assert again is not None and again.to_json() == record.to_json()


# -- every role's wait ends at the code's deadline -----------------------------------------------------


def test_a_follower_of_a_stopped_poller_ends_at_the_codes_deadline(home, server, tmp_path):
    """A second `login` following a poller stopped by SIGSTOP (Ctrl+Z) never ended."""
    server.device_ttl = 4
    server.expire_codes = False
    leader = Login(tmp_path, 0)
    try:
        until(lambda: follow.is_pending(follow.read(Region.CN)))
        os.kill(leader.process.pid, signal.SIGSTOP)
        started = time.monotonic()
        follower = Login(tmp_path, 1)
        code = follower.end(timeout=60)
        assert code == 1, follower.said
        assert "Following the sign-in" in follower.said and "The code expired" in follower.said
        assert time.monotonic() - started < 30  # the code's 4 s, not forever
    finally:
        os.kill(leader.process.pid, signal.SIGCONT)
        leader.end()
    assert server.count(DEVICE_PATH) == 1


async def test_a_follower_of_a_leader_without_a_code_goes_on_alone(home, server):
    """A leader stopped before its code arrived (the lease held, the record 'requesting'): the
    follower waits the request's whole budget, then requests a code of its own."""
    held = Lease(Region.CN)
    assert follow.join(held).role is Role.LEAD
    follow.begin(Region.CN)
    now = [0.0]

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    attempt = SignIn(Region.CN, clock=lambda: now[0], sleep=sleep)
    try:
        server.auto_approve = 0.2
        outcome = await attempt.run()
        assert outcome.success, outcome
        assert now[0] > SignIn.CODE_WAIT and attempt.shared.stalled
        assert server.count(DEVICE_PATH) == 1
        assert follow.read(Region.CN).state == follow.REQUESTING  # the stalled leader's record is its own
    finally:
        held.release()
