"""A sign-in that survives the SSH connection, in real terminals: tmux at 80x24, `kill-server` after
the code is shown (a real SIGHUP), then the person approves (or denies, or does nothing) on
another device. Also: a second terminal picks the attempt up, with one poller at a time."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time

import pytest

from tests.cli.test_tui_in_tmux import SCRIPT, TMUX
from tests.commands import run_command
from tests.conftest import read_json
from tests.waiting import until
from tui.demo.server import DEVICE_PATH, TOKEN_PATH

pytestmark = pytest.mark.skipif(not (TMUX and SCRIPT), reason="needs tmux and the installed console script")


def status(*args: str) -> subprocess.CompletedProcess:
    return run_command(["status", *args], env=os.environ.copy(), timeout=30)


def record(home) -> dict | None:
    path = home / "signin" / "cn.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of ours is gone as far as anyone can tell
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def started_and_dropped(terminal, home, server, *args: str) -> tuple[str, int]:
    """Start a sign-in in a terminal, wait for its code, close the terminal: (user code, pid)."""
    term = terminal(*args)
    if "--no-tui" in args:
        term.wait_for("Code:")
    else:
        term.wait_for("Choose the region of your account")
        term.keys("Enter")
        term.wait_until(lambda s: "Waiting for you to approve" in s, "the code screen")
    pid = until(lambda: (record(home) or {}).get("poller_pid"), what="the attempt's record")
    code = server.grants()[-1].user_code
    term.close()  # kill-server: the terminal goes away, its processes get SIGHUP
    until(lambda: (record(home) or {}).get("detached"), what="the attempt carrying on without a terminal")
    return code, pid


def assert_private_and_secret_free(home, server) -> None:
    directory = home / "signin"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    for path in directory.iterdir():
        if path.is_file():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600
            text = path.read_text()
            for grant in server.grants():
                assert grant.device_code not in text
            for access, refresh in server.issued:
                assert access not in text and refresh not in text


@pytest.mark.parametrize("face", [("login", "--no-tui"), ("--no-browser",)], ids=["cli", "wizard"])
def test_approved_after_the_terminal_closed(terminal, home, server, face):
    code, pid = started_and_dropped(terminal, home, server, *face)
    polls_at_drop = server.count(TOKEN_PATH)
    server.approve(code)
    until(lambda: (home / "credentials" / "assistant-code.json").exists(), what="the saved tokens")
    assert read_json(home / "credentials" / "assistant-code.json")["access_token"] == server.issued[-1][0]
    until(lambda: not alive(pid), what="the process ending")
    assert server.count(TOKEN_PATH) > polls_at_drop  # it went on polling without a terminal
    done = status()
    assert (
        "While you were away, the sign-in started at" in done.stdout
        and "completed: signed in as user-1 · cn" in done.stdout
    )
    away = json.loads(status("--json").stdout)["away"]
    assert away["outcome"] == "success" and away["identity"] == "user-1" and away["region"] == "cn"
    assert "completed" in status().stdout  # a piped status does not swallow it
    assert_private_and_secret_free(home, server)
    assert server.count(DEVICE_PATH) == 1


def test_denied_after_the_terminal_closed(terminal, home, server):
    code, pid = started_and_dropped(terminal, home, server, "login", "--no-tui")
    server.deny(code)
    until(lambda: not alive(pid), what="the process ending")
    assert "was denied in the browser" in status().stdout
    assert json.loads(status("--json").stdout)["away"]["outcome"] == "access_denied"
    assert not (home / "credentials" / "assistant-code.json").exists()  # never shown as usable


def test_expired_after_the_terminal_closed(terminal, home, server):
    server.device_ttl = 5
    code, pid = started_and_dropped(terminal, home, server, "login", "--no-tui")
    polls_at_drop = server.count(TOKEN_PATH)
    until(lambda: not alive(pid), what="the process ending at the deadline")
    assert server.count(TOKEN_PATH) > polls_at_drop
    assert "expired before it was approved: sign in again" in status().stdout
    assert json.loads(status("--json").stdout)["away"]["outcome"] in ("expired", "timeout")
    assert_private_and_secret_free(home, server)


def poll_gaps(server) -> list[float]:
    times = [r.time for r in server.requests(TOKEN_PATH) if r.form.get("grant_type", "").endswith("device_code")]
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def test_a_new_terminal_picks_up_a_dropped_sign_in(terminal, home, server):
    code, pid = started_and_dropped(terminal, home, server, "login", "--no-tui")
    second = terminal("login", "--no-tui")
    screen = second.wait_until(lambda s: "Following the sign-in started at" in s and "Code:" in s, "the followed code")
    assert code in screen and "`assistant-auth login --new` abandons it" in screen
    server.approve(code)
    second.wait_for("Signed in as user-1 · cn")
    second.wait_for("EXITED=0")
    assert server.count(DEVICE_PATH) == 1  # one device authorization, the same code
    assert len([a for a, _r in server.issued]) == 1  # tokens issued (and saved) once
    assert min(poll_gaps(server)) >= server.interval - server.slow_down_tolerance
    assert all(g.slow_downs == 0 for g in server.grants())
    until(lambda: not alive(pid), what="the detached process ending")


def test_following_an_attached_sign_in_in_a_second_terminal(terminal, home, server):
    first = terminal("login", "--no-tui")
    first.wait_for("Code:")
    code = server.grants()[-1].user_code
    second = terminal("login", "--no-tui")
    second.wait_for("Following the sign-in started at")
    server.approve(code)
    first.wait_for("Signed in as user-1 · cn")
    second.wait_for("Signed in as user-1 · cn")
    assert server.count(DEVICE_PATH) == 1 and len(server.issued) == 1


def test_the_wizard_follows_a_dropped_sign_in(terminal, home, server):
    code, pid = started_and_dropped(terminal, home, server, "login", "--no-tui")
    wizard = terminal("--no-browser")
    wizard.wait_for("sign-in waits for approval")
    wizard.keys("Enter")
    screen = wizard.wait_until(lambda s: "Enter this code there" in s and "Waiting for you" in s, "the followed code")
    assert " ".join(code) in screen  # the code arrives with the waiting state: never a new code
    server.approve(code)
    wizard.wait_for("Signed in as user-1")
    assert server.count(DEVICE_PATH) == 1


def test_new_abandons_a_dropped_sign_in_and_starts_fresh(terminal, home, server):
    code, pid = started_and_dropped(terminal, home, server, "login", "--no-tui")
    fresh = terminal("login", "--no-tui", "--new")
    fresh.wait_for("Abandoned the sign-in started at")
    fresh.wait_for("Code:")
    until(lambda: not alive(pid), what="the abandoned poller ending")
    assert server.count(DEVICE_PATH) == 2
    new_code = server.grants()[-1].user_code
    assert new_code != code
    server.approve(new_code)
    fresh.wait_for("Signed in as user-1 · cn")


def test_a_watcher_takes_over_when_the_poller_is_killed(terminal, home, server):
    first = terminal("login", "--no-tui")
    first.wait_for("Code:")
    code = server.grants()[-1].user_code
    pid = until(lambda: (record(home) or {}).get("poller_pid"), what="the record")
    second = terminal("login", "--no-tui")
    second.wait_for("Following the sign-in started at")
    os.kill(pid, signal.SIGKILL)
    killed_at = time.time()
    until(lambda: (record(home) or {}).get("poller_pid") not in (None, pid), what="the take-over")
    server.approve(code)
    second.wait_for("Signed in as user-1 · cn")
    first_poll_after = min(r.time for r in server.requests(TOKEN_PATH) if r.time > killed_at)
    assert first_poll_after - killed_at <= server.interval + 2  # within about one interval
    assert min(poll_gaps(server)) >= server.interval - server.slow_down_tolerance
    assert server.count(DEVICE_PATH) == 1


def test_the_record_is_never_reached_through_a_link(terminal, home, server, tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("keep me")
    (home / "signin").mkdir(parents=True, mode=0o700)
    (home / "signin" / "cn.json").symlink_to(outside)
    term = terminal("login", "--no-tui")
    term.wait_for("Code:")
    server.approve(server.grants()[-1].user_code)
    term.wait_for("EXITED=0")
    assert outside.read_text() == "keep me"
    assert not (home / "signin" / "cn.json").is_symlink()  # replaced, never followed


def test_doctor_knows_the_records_and_never_shows_a_device_code(terminal, home, server):
    term = terminal("login", "--no-tui")
    term.wait_for("Code:")
    until(lambda: record(home), what="the record")
    os.chmod(home / "signin", 0o755)  # the record itself is rewritten 0600 at every poll
    report = run_command(["doctor", "--offline", "--report"], env=os.environ.copy(), timeout=60)
    text = run_command(["doctor", "--offline"], env=os.environ.copy(), timeout=60).stdout
    grant = server.grants()[-1]
    for output in (report.stdout, text):
        assert grant.device_code not in output
    checks = {c["name"]: c for c in json.loads(report.stdout)["checks"]}
    assert checks["files.signin.cn"]["status"] == "ok" and checks["files.signin.cn"]["repair"] is None  # live: kept
    assert checks["files.signin"]["status"] == "warn" and checks["files.signin"]["repair"]
    term.keys("C-c")
    term.wait_for("EXITED=130")


def test_login_says_how_it_ended_once_on_a_terminal(terminal, home, server):
    code, pid = started_and_dropped(terminal, home, server, "login", "--no-tui")
    server.approve(code)
    until(lambda: not alive(pid), what="the process ending")
    assert "completed" in status().stdout  # a piped status leaves it
    again = terminal("status")
    again.wait_for("While you were away, the sign-in started at")
    again.wait_for("EXITED=0")
    assert "While you were away" not in status().stdout  # seen on a terminal: said once
    assert json.loads(status("--json").stdout)["away"] is None


def test_cancelling_the_poller_tells_the_watcher(terminal, home, server):
    first = terminal("login", "--no-tui")
    first.wait_for("Code:")
    second = terminal("login", "--no-tui")
    second.wait_for("Following the sign-in started at")
    first.keys("C-c")
    first.wait_for("EXITED=130")
    second.wait_for("discarded in another terminal")
    second.wait_for("EXITED=1")


def test_a_watcher_that_cancels_only_stops_watching(terminal, home, server):
    first = terminal("login", "--no-tui")
    first.wait_for("Code:")
    second = terminal("login", "--no-tui")
    second.wait_for("Following the sign-in started at")
    second.keys("C-c")
    second.wait_for("Stopped following; the sign-in goes on in the other terminal.")
    server.approve(server.grants()[-1].user_code)
    first.wait_for("Signed in as user-1 · cn")


def test_a_watcher_that_cancels_a_detached_poller_discards(terminal, home, server):
    code, pid = started_and_dropped(terminal, home, server, "login", "--no-tui")
    second = terminal("login", "--no-tui")
    second.wait_for("Following the sign-in started at")
    second.keys("C-c")
    second.wait_for("Discarded the sign-in that went on without a terminal.")
    until(lambda: not alive(pid), what="the detached poller ending")
    assert (record(home) or {}).get("outcome") == "discarded"
    assert "While you were away" not in status().stdout  # a discard is not news


@pytest.mark.parametrize("face", [("login", "--no-tui"), ("--no-browser",)], ids=["cli", "wizard"])
def test_sigterm_discards(terminal, home, server, face):
    term = terminal(*face)
    if "--no-tui" not in face:
        term.wait_for("Choose the region of your account")
        term.keys("Enter")
    pid = until(lambda: (record(home) or {}).get("poller_pid"), what="the record")
    os.kill(pid, signal.SIGTERM)
    term.wait_for("EXITED=143")
    assert (record(home) or {}).get("outcome") == "discarded"
    assert "waiting for approval" not in status().stdout  # nothing left for `login` to follow
