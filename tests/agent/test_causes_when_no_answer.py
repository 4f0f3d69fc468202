"""One line per cause when the agent does not answer (#43, item 9), each test naming its cause:
on the agent's own machine (stopped or killed; its --lifetime ended; never "reconnect with ssh")
and, through a real sshd, on a server (the SSH connection ended; the connection is there but the
agent on the person's machine is gone)."""

from __future__ import annotations

import os
import signal
import subprocess

from tests.agent.conftest import RunningAgent
from tests.agent.openssh import needs_openssh
from tests.commands import run_command
from tests.conftest import terminate
from tests.waiting import PATIENCE, until


def token(sock: str, home) -> subprocess.CompletedProcess:
    env = {**os.environ, "ASSISTANT_CODE_HOME": str(home), "ASSISTANT_AUTH_SOCK": sock, "ASSISTANT_LANG": "en"}
    return run_command(["token"], env=env, timeout=PATIENCE)


def test_cause_killed_on_the_agents_own_machine(laptop, server, server_home):
    running = RunningAgent(os.environ.copy())
    os.kill(running.process.pid, signal.SIGKILL)
    running.process.wait()
    done = token(running.path, server_home)
    assert done.returncode == 3 and "it was stopped or killed (nothing listens there)" in done.stderr
    assert "assistant-auth ssh" not in done.stderr  # never "reconnect" on the agent's own machine


def test_cause_lifetime_ended(laptop, server, server_home):
    running = RunningAgent(os.environ.copy(), "--lifetime", "1")
    assert running.process.wait(PATIENCE) == 0
    done = token(running.path, server_home)
    assert done.returncode == 3 and "its --lifetime ended at" in done.stderr and "Broken pipe" not in done.stderr
    again = RunningAgent({**os.environ}, "-a", running.path)  # a new agent at the same path: the word goes
    try:
        assert not os.path.exists(running.path + ".ended")
    finally:
        again.stop()


@needs_openssh
def test_cause_the_ssh_connection_ended(forwarded_agent, server_home):
    _agent, through = forwarded_agent
    terminate(through.connection)  # the connection drops; its socket stays behind on the server
    done = token(through.path, server_home)
    assert done.returncode == 3 and "the SSH connection that made this socket has ended" in done.stderr


@needs_openssh
def test_cause_the_agent_on_your_own_machine_is_gone(forwarded_agent, server_home):
    agent, through = forwarded_agent
    os.kill(agent.process.pid, signal.SIGKILL)
    agent.process.wait()
    until(lambda: through.connection.poll() is None)  # the SSH connection itself is still there
    done = token(through.path, server_home)
    assert done.returncode == 3
    assert "the SSH connection is there, but the agent on your own machine was stopped or killed" in done.stderr
