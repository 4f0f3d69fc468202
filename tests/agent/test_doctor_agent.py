"""`doctor` checks ASSISTANT_AUTH_SOCK (#43, item 10): a live agent is reported with what it
serves; a socket that does not answer is a failure with the next step, naming the newest live
forwarded connection when there is one."""

from __future__ import annotations

import json
import os
import signal
import subprocess

from tests.agent.conftest import RunningAgent
from tests.agent.openssh import needs_openssh
from tests.cli.test_cli import SCRIPT, valid
from tests.commands import run_command
from tests.conftest import write_creds
from tests.waiting import PATIENCE, until


def doctor(sock: str | None, home) -> tuple[int, dict]:
    env = {**os.environ, "ASSISTANT_CODE_HOME": str(home), "ASSISTANT_LANG": "en"}
    env.pop("ASSISTANT_AUTH_SOCK", None)
    if sock is not None:
        env["ASSISTANT_AUTH_SOCK"] = sock
    done = run_command(["doctor", "--offline", "--json"], env=env, timeout=PATIENCE)
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    return done.returncode, checks


def test_no_variable_no_agent_check(home):
    _code, checks = doctor(None, home)
    assert "agent.socket" not in checks


def test_a_live_agent_on_its_own_machine_is_reported_with_what_it_serves(laptop, server, agent):
    write_creds(laptop, valid(server))
    _code, checks = doctor(agent.path, laptop)
    check = checks["agent.socket"]
    assert (
        check["status"] == "ok"
        and f"(pid {agent.pid})" in check["finding"]
        and "this machine's sign-in" in check["finding"]
    )


def test_a_dead_socket_fails_with_the_next_step(laptop, server, tmp_path):
    running = RunningAgent(os.environ.copy())
    os.kill(running.process.pid, signal.SIGKILL)
    running.process.wait()
    code, checks = doctor(running.path, tmp_path / "elsewhere")
    check = checks["agent.socket"]
    assert code == 1 and check["status"] == "fail" and "stopped or killed" in check["finding"]
    assert "assistant-auth agent" in check["fix"]


def test_a_dead_socket_names_the_newest_live_connection(laptop, server, server_home):
    agent = RunningAgent(os.environ.copy())
    registered = server_home / "forwarded"
    registered.mkdir(mode=0o700)
    (registered / "live.sock").symlink_to(agent.path)
    try:
        code, checks = doctor("/tmp/assistant-auth-0123456789abcdef.sock", server_home)
        check = checks["agent.socket"]
        assert code == 1 and check["status"] == "fail" and agent.path in check["fix"]
        assert "latest.sock" in check["fix"] and check["details"]["live"] == agent.path
    finally:
        agent.stop()


@needs_openssh
def test_on_a_server_the_agent_of_your_own_machine_is_reported(forwarded_agent, laptop, server_home):
    _agent, through = forwarded_agent
    _code, checks = doctor(through.path, server_home)
    check = checks["agent.socket"]
    assert check["status"] == "ok" and "on your own machine answers" in check["finding"]
    assert str(laptop) not in json.dumps(check)
    # #59 2: no sign-in on the server is the way it should be, never "sign in here" (the one predicate)
    credentials = checks["credentials"]
    assert credentials["status"] == "ok" and "come from the token agent on your own machine" in credentials["finding"]
    assert "assistant-auth login" not in json.dumps(credentials)


def test_without_an_agent_an_empty_home_is_told_to_sign_in(home):
    _code, checks = doctor(None, home)
    assert checks["credentials"]["status"] == "warn" and "assistant-auth login" in checks["credentials"]["fix"]


def test_status_on_the_server_shows_a_running_relay(laptop, server, server_home):
    """#43, item 10: a relay running on the server is shown by `status` there, and no longer once
    it has ended."""
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy())
    env = {**os.environ, "ASSISTANT_CODE_HOME": str(server_home), "ASSISTANT_AUTH_SOCK": agent.path}
    env["ASSISTANT_LANG"] = "en"
    relay = subprocess.Popen([SCRIPT, "relay", "--quiet"], env=env, stderr=subprocess.PIPE, text=True)
    note = server_home / "forwarded" / "relay-assistant-code.pid"
    try:
        until(lambda: note.exists() and (server_home / "credentials" / "assistant-code.json").exists())
        shown = run_command(["status"], env=env, timeout=PATIENCE)
        assert f"A relay (pid {relay.pid}) keeps slot assistant-code's file filled" in shown.stdout, shown.stdout
    finally:
        relay.send_signal(signal.SIGTERM)
        relay.wait(PATIENCE)
        agent.stop()
    assert not note.exists()
