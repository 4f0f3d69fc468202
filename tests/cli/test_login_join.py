"""Terminals that start `login` into one region at once make one device authorization and all
follow it: taking the lease and deciding to follow are one step. Real processes, the project's
own authorization server on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import subprocess
import threading

from tests.app.helpers import screen_name, screen_text, wait_for
from tests.spawned import spawn_command
from tests.waiting import until
from tui.app import AssistantAuthApp
from tui.demo.server import DEVICE_PATH, Fault

SIX = 6


class Login:
    """`login --no-tui` in a process of its own; what it says is read from a file as it goes."""

    def __init__(self, tmp_path, number: int, *args: str) -> None:
        self.log = tmp_path / f"login-{number}.err"
        with open(self.log, "w") as handle:
            self.process = spawn_command(
                ["login", "--no-tui", *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=handle,
                env=os.environ.copy(),
                default_signals=True,
            )

    @property
    def said(self) -> str:
        return self.log.read_text()

    def end(self, timeout: float = 60) -> int:
        try:
            return self.process.wait(timeout=timeout)
        finally:
            if self.process.poll() is None:
                os.kill(self.process.pid, signal.SIGCONT)  # a stopped one (SIGSTOP) is killed too
                self.process.kill()
                self.process.wait()


def test_six_logins_at_once_make_one_sign_in_and_all_succeed(home, server, tmp_path):
    logins = [Login(tmp_path, n) for n in range(SIX)]
    until(lambda: all("Code:" in login.said for login in logins))  # every terminal shows the one code
    server.approve(server.grants()[-1].user_code)
    codes = [login.end() for login in logins]
    assert server.count(DEVICE_PATH) == 1
    assert codes == [0] * SIX, [login.said for login in logins]
    for login in logins:
        said = login.said
        assert "Signed in as user-1 · cn." in said and "already waiting" not in said
        assert "Run `assistant-auth login` to follow it" not in said  # never the command just run
    assert len({line for login in logins for line in login.said.splitlines() if line.startswith("Code:")}) == 1
    assert sum("Following the sign-in started at" in login.said for login in logins) == SIX - 1


def test_a_failed_request_is_reported_the_same_way_by_every_follower(home, server, tmp_path):
    gate = threading.Event()
    server.inject(DEVICE_PATH, Fault(status=400, body='{"error": "invalid_client"}', gate=gate))
    logins = [Login(tmp_path, n) for n in range(3)]
    until(lambda: sum("Following the sign-in started at" in login.said for login in logins) == 2)
    gate.set()  # the leader's request is answered only once both others follow it
    assert [login.end() for login in logins] == [2, 2, 2]
    assert server.count(DEVICE_PATH) == 1
    assert all("Device authorization failed (HTTP 400)" in login.said for login in logins)


async def test_the_wizard_follows_a_sign_in_another_terminal_leads(home, server, tmp_path):
    leader = Login(tmp_path, 0).process
    try:
        app = AssistantAuthApp(no_browser=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "sign-in waits for approval" in screen_text(app))
            await pilot.press("enter")
            await wait_for(pilot, lambda: screen_name(app) == "SignInScreen" and "Waiting for you" in screen_text(app))
            grant = server.grants()[-1]
            assert " ".join(grant.user_code) in screen_text(app)
            server.approve(grant.user_code)
            await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        assert leader.wait(timeout=30) == 0
    finally:
        if leader.poll() is None:
            leader.kill()
        leader.communicate()
    assert server.count(DEVICE_PATH) == 1
