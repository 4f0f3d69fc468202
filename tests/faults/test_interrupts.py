"""An interrupt never loses a rotated refresh token.

The server here rotates the refresh token the moment the request arrives and answers 1.5 s later.
Ctrl+C, SIGTERM or SIGHUP in that window used to drop the answer: the file kept the spent refresh
token and the next call had to sign in again. Now the answer is stored first, then the signal is
honoured: the process still ends as the signal says.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.app.helpers import screen_name, wait_for
from tests.commands import run_command
from tests.conftest import default_signals, read_json, write_creds
from tests.waiting import PATIENCE, until
from tui.app import AssistantAuthApp
from tui.core import get_access_token
from tui.core.signals import FINISHING

SLOT = "assistant-code"


@pytest.fixture
def slow_rotation(server, home):
    """Expired credentials whose refresh the server rotates on receipt and answers only when the
    test opens its gate (`server.refresh_gate.set()`), after the signal or cancel it sends: never
    a delay that a loaded machine can outrun."""
    server.rotate_on_receipt = True
    server.refresh_gate = threading.Event()
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    try:
        yield server
    finally:
        server.refresh_gate.set()  # a failed test never leaves the server's thread waiting


def spawn(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tui.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
        preexec_fn=default_signals,
    )


def wait_for_rotation(server, before: int, timeout: float = PATIENCE) -> None:
    deadline = time.monotonic() + timeout
    while len(server.issued) <= before:
        assert time.monotonic() < deadline, "the refresh never reached the server"
        time.sleep(0.01)


def assert_rotation_kept(home, server) -> None:
    stored = read_json(home / "credentials" / f"{SLOT}.json")
    access, refresh = server.issued[-1]
    assert (stored["access_token"], stored["refresh_token"]) == (access, refresh)
    assert not (home / "oauth" / f"{SLOT}.lock").exists()  # every lock released


@pytest.mark.parametrize("command", ["token", "refresh"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["INT", "TERM", "HUP"])
def test_a_signal_during_the_refresh_waits_for_the_answer_to_be_stored(home, slow_rotation, signum, command):
    server = slow_rotation
    before = len(server.issued)
    proc = spawn(command)
    wait_for_rotation(server, before)
    proc.send_signal(signum)
    server.refresh_gate.set()  # the answer comes after the signal
    out, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode in (-signum, 128 + signum), (proc.returncode, err)  # ended as the signal says
    assert "Traceback" not in err
    if signum == signal.SIGINT:
        assert FINISHING in err
    assert_rotation_kept(home, server)
    again = run_command(["token"], env=os.environ.copy(), timeout=30)
    assert again.returncode == 0 and again.stdout.strip() == server.issued[-1][0]  # still signed in
    assert len(server.refreshes()) == 1


def test_a_signal_before_the_request_still_discards_at_once(home, server):
    """Outside the critical section nothing is deferred: a refresh waiting for a lock is stopped."""
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    lock = home / "oauth" / f"{SLOT}.lock"
    lock.mkdir(parents=True)  # held by another client: we wait before sending anything
    stop = time.time() + 20

    import threading

    def renew():
        while time.time() < stop and lock.exists():
            os.utime(lock)
            time.sleep(0.3)

    threading.Thread(target=renew, daemon=True).start()
    proc = spawn("token")
    until(lambda: b"Waiting for" in _peek(proc), "the lock-wait line")
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=PATIENCE)
    stop = 0
    assert proc.returncode == 130 and FINISHING not in err
    assert server.refreshes() == []


def _peek(proc) -> bytes:
    """What the process wrote to stderr so far (non-blocking)."""
    import fcntl

    fd = proc.stderr.fileno()
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    try:
        chunk = os.read(fd, 65536)
    except BlockingIOError:
        chunk = b""
    _peek.seen = getattr(_peek, "seen", b"") + chunk
    return _peek.seen


async def test_cancelling_the_caller_does_not_abandon_a_sent_refresh(home, slow_rotation):
    server = slow_rotation
    before = len(server.issued)
    task = asyncio.create_task(get_access_token(None, os.environ["ASSISTANT_BASE_URL_CN"]))
    while len(server.issued) <= before:
        await asyncio.sleep(0.01)
    task.cancel()
    server.refresh_gate.set()  # the answer comes after the cancel
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_rotation_kept(home, server)


async def test_leaving_the_inspector_during_a_refresh_keeps_the_rotation(home, slow_rotation):
    server = slow_rotation
    before = len(server.issued)
    app = AssistantAuthApp()
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        await pilot.press("r")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: len(server.issued) > before)
        await pilot.press("escape")  # the screen goes, its worker is cancelled mid-request
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        server.refresh_gate.set()  # the answer comes after the screen has gone
        await wait_for(
            pilot,
            lambda: read_json(home / "credentials" / f"{SLOT}.json")["access_token"] == server.issued[-1][0],
        )
    assert_rotation_kept(home, server)


async def test_esc_to_the_shell_during_a_refresh_ends_the_app_after_the_answer_is_stored(home, slow_rotation):
    """`assistant-auth inspect`, r, y, then Esc (back to the shell) while the answer is on its way:
    the app ends only once the rotation is stored."""
    server = slow_rotation
    before = len(server.issued)
    app = AssistantAuthApp(start="inspect")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        await pilot.press("r")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: len(server.issued) > before)
        await pilot.press("escape")  # back to the shell: the exit waits
        await pilot.pause(0.3)
        assert app.is_running  # the answer is not stored yet
        server.refresh_gate.set()
        await wait_for(pilot, lambda: not app.is_running)
    assert read_json(home / "credentials" / f"{SLOT}.json")["access_token"] == server.issued[-1][0]
    assert_rotation_kept(home, server)


def test_an_ignored_signal_stays_ignored(home, slow_rotation):
    """Started with SIGINT ignored (nohup, a background job): Ctrl+C is not ours to honour, so the
    refresh is not announced as interrupted and the token is printed."""
    server = slow_rotation
    before = len(server.issued)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "token"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    wait_for_rotation(server, before)
    proc.send_signal(signal.SIGINT)
    server.refresh_gate.set()
    out, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 0 and out.strip() == server.issued[-1][0] and FINISHING not in err
    assert_rotation_kept(home, server)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_signal_that_comes_with_a_polls_answer_still_discards_the_sign_in(home, server, tmp_path, signum):
    """The signal and the answer to a poll reach `login --no-tui` in one turn of its event loop
    (it is stopped while both arrive). Python 3.10/3.11's wait_for returned the answer and lost
    the cancel: the sign-in polled on until its code expired (a suite flake found it)."""
    from tests.cli.test_login_join import Login
    from tui.demo.server import TOKEN_PATH, Fault

    gate, answered = threading.Event(), threading.Event()
    pending = '{"error": "authorization_pending"}'
    server.inject(TOKEN_PATH, Fault(status=400, body=pending, gate=gate, answered=answered))
    login = Login(tmp_path, 0, "--no-browser")
    try:
        assert server.traffic.wait_for(1, TOKEN_PATH, timeout=PATIENCE), login.said  # its first poll waits on the gate
        os.kill(login.process.pid, signal.SIGSTOP)
        gate.set()
        assert answered.wait(PATIENCE)  # the answer is in its socket
        os.kill(login.process.pid, signum)
        os.kill(login.process.pid, signal.SIGCONT)  # both wake it at once
        code = login.end()
    finally:
        gate.set()
    assert code == (128 + signum if signum == signal.SIGTERM else 130), login.said
    assert "Sign-in discarded: nothing was saved." in login.said
    assert server.count(TOKEN_PATH) == 1  # not one poll after the signal
