"""The agent on every system (#51), with real agents, real commands and (where named) a real sshd:
on Linux, on macOS and FreeBSD simulated from Linux's own answers, and on a system that says
nothing about a peer (`system`, tests/agent/conftest.py).

- the person's own commands work everywhere: `status`, `token`, `agent --stop` (the local proof
  where the system says nothing);
- `agent --stop` by pid (the socket gone) stops this program's agent where the system tells which
  program a pid is, and where it does not, stops nothing and says how;
- the background agent is this program started again (no plain fork), in its own session, with
  nothing of the shell's; it answers before its lines are printed; a start that fails is said;
- on a system without a runtime directory the agent's place is in the home, found again by the
  next start; Linux without one keeps a new directory each time;
- an agent stopped with a wizard connected ends without a traceback."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile

import pytest

from tests.agent.conftest import RunningAgent, alive
from tests.agent.openssh import Forwarded, needs_openssh
from tests.cli.test_cli import SCRIPT, valid
from tests.commands import run_command
from tests.conftest import terminate, write_creds
from tests.waiting import PATIENCE, until
from tui.core.agent.client.answering import offer
from tui.core.agent.client.ask import ask
from tui.core.agent.server import background, place
from tui.core.agent.wire.protocol import Request


def run(*args: str, **extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ASSISTANT_LANG": "en", **extra}
    return run_command(args, env=env, timeout=PATIENCE)


def started_in_background(*args: str) -> dict:
    done = run("agent", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def short_home(laptop, monkeypatch):
    """A home short enough for a socket in it on every system (104 bytes on macOS)."""
    where = tempfile.mkdtemp(prefix="aa-home-")
    monkeypatch.setenv("ASSISTANT_CODE_HOME", os.path.join(where, ".assistant-code"))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    pids: list[int] = []
    yield where, pids
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGTERM)
    until(lambda: not any(alive(pid) for pid in pids), what="the test's agents ending")
    subprocess.run(["rm", "-rf", where], check=False)


def test_the_persons_own_commands_work_on_every_system(system, laptop, server):
    creds = valid(server)
    write_creds(laptop, creds)
    agent = RunningAgent(os.environ.copy())
    try:
        status = run("status", "--json", ASSISTANT_AUTH_SOCK=agent.path)
        assert status.returncode == 0 and json.loads(status.stdout)["agent"]["pid"] == agent.pid, status.stdout
        token = run("token", ASSISTANT_AUTH_SOCK=agent.path)
        assert token.returncode == 0 and token.stdout.strip() == creds["access_token"]
        stopped = run("agent", "--stop", ASSISTANT_AUTH_SOCK=agent.path)
        assert stopped.returncode == 0, stopped.stderr
        assert agent.process.wait(PATIENCE) == 0
    finally:
        agent.stop()


@needs_openssh
def test_a_server_stops_nothing_and_reads_no_path_on_every_system(system, laptop, server, sshd):
    agent = RunningAgent(os.environ.copy())  # not signed in: a failing token would name the laptop's home
    through = Forwarded(sshd, agent.path)
    try:
        stop = run("agent", "--stop", ASSISTANT_AUTH_SOCK=through.path)
        assert stop.returncode == 2 and agent.process.poll() is None
        ping = ask(Request("ping"), through.path)
        assert set(ping) == {"v", "ok", "alive", "asked_from"}  # no pid, no home, no policy
        token = run("token", ASSISTANT_AUTH_SOCK=through.path)
        assert token.returncode == 1 and str(laptop) not in token.stderr and "your own machine" in token.stderr
    finally:
        through.close()
        agent.stop()


def test_stop_by_pid_where_the_system_tells_and_where_it_does_not(system, short_home):
    _where, pids = short_home
    found = started_in_background()
    pids.append(found["pid"])
    gone = found["socket"] + ".gone"  # the socket's variable names nothing any more
    stop = run("agent", "--stop", ASSISTANT_AUTH_SOCK=gone, ASSISTANT_AUTH_AGENT_PID=str(found["pid"]))
    if system.places:
        assert stop.returncode == 0, stop.stderr
        until(lambda: not alive(found["pid"]), what="the agent stopped by its pid")
    else:  # nothing says which program the pid is: never signalled, and the person told how
        assert stop.returncode == 2 and f"kill {found['pid']}" in stop.stderr
        assert "does not say which program" in stop.stderr and alive(found["pid"])


def test_the_background_agent_is_this_program_started_again(short_home):
    _where, pids = short_home
    found = started_in_background()
    pids.append(found["pid"])
    assert ask(Request("ping"), found["socket"])["ok"] is True  # it answers as soon as its lines are printed
    pid = found["pid"]
    argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    assert b"--adopt" in argv and b"agent" in argv  # exec'd anew: no plain fork goes on running Python
    assert os.getsid(pid) == pid and os.readlink(f"/proc/{pid}/cwd") == "/"
    for fd in (0, 1, 2):
        assert os.readlink(f"/proc/{pid}/fd/{fd}") == "/dev/null"  # nothing of the shell's pipes
    assert not os.path.exists(os.path.dirname(found["socket"]) + "/../" + "handed")  # nothing on disk to hand over
    stopped = run("agent", "--stop", ASSISTANT_AUTH_SOCK=found["socket"], ASSISTANT_AUTH_AGENT_PID=str(pid))
    assert stopped.returncode == 0
    until(lambda: not os.path.exists(found["socket"]), what="its socket removed by the agent itself")


def test_a_background_agent_that_cannot_start_is_said_and_leaves_nothing(home, monkeypatch):
    short = tempfile.mkdtemp(prefix="aa-")
    listener, path = place.listen(directory=short)
    key = place.write_answer_key(path)
    monkeypatch.setattr(sys, "executable", "/bin/false")
    with pytest.raises(background.NotStarted) as failed:
        background.start(listener, background.Handed(path, key, None, False))
    assert "did not start" in str(failed.value.args[0]) and key not in str(failed.value.args[0])
    listener.close()
    place.remove(path)
    assert not os.path.exists(path) and not os.path.exists(path + ".key")
    os.rmdir(short)


@pytest.mark.parametrize("descriptor", ["1", "0", "99"], ids=["a file", "another socket", "none"])
def test_the_adopted_socket_is_checked(home, tmp_path, descriptor):
    """`agent --adopt FD` takes only a listening socket bound at the path it is told."""
    ours, theirs = socket.socketpair()
    with ours:
        child = subprocess.Popen([SCRIPT, "agent", "--adopt", descriptor], stdin=theirs, stdout=subprocess.DEVNULL)
        theirs.close()
        handed = {"path": str(tmp_path / "a.sock"), "key": None, "lifetime": None, "confirm": False}
        ours.sendall(json.dumps(handed).encode() + b"\n")
        ours.settimeout(PATIENCE)
        said = ours.recv(1000).decode()
    assert child.wait(PATIENCE) == 2 and "not the agent's socket" in said


def test_the_place_on_a_system_without_a_runtime_directory_is_in_the_home(short_home, monkeypatch):
    where, pids = short_home
    monkeypatch.setenv("ASSISTANT_AUTH_SYSTEM", "darwin")
    found = started_in_background()
    pids.append(found["pid"])
    assert found["socket"] == os.path.join(where, ".assistant-code", "agent", "agent.sock")
    assert oct(os.stat(os.path.dirname(found["socket"])).st_mode & 0o777) == "0o700"
    again = run("agent", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["pid"] == found["pid"]  # found, not a second one
    assert "already running" in again.stderr
    monkeypatch.delenv("ASSISTANT_AUTH_SYSTEM")  # Linux without XDG_RUNTIME_DIR: a new directory each time
    first, second = started_in_background(), started_in_background()
    pids.extend([first["pid"], second["pid"]])
    assert first["socket"] != second["socket"] and "/agent/" not in first["socket"]


@pytest.mark.parametrize("how", ["stop", "SIGTERM"])
def test_a_stop_with_a_wizard_connected_ends_cleanly(system, home, tmp_path, how):
    agent = subprocess.Popen(
        [SCRIPT, "agent", "--foreground", "--confirm", "-a", str(tmp_path / "a.sock")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    answering = None
    try:  # from the agent's start: a failed assertion below never leaves it running with --confirm on
        until(lambda: os.path.exists(tmp_path / "a.sock.key"), what="the agent's key")
        answering = offer(str(tmp_path / "a.sock"))
        assert answering is not None  # the wizard is connected
        if how == "stop":
            assert run("agent", "--stop", ASSISTANT_AUTH_SOCK=str(tmp_path / "a.sock")).returncode == 0
        else:
            agent.send_signal(signal.SIGTERM)
        _out, err = agent.communicate(timeout=PATIENCE)
    finally:
        if answering is not None:
            answering.close()
        terminate(agent)
    assert agent.returncode == 0
    assert "Traceback" not in err and "CancelledError" not in err and "Exception" not in err, err


@pytest.mark.parametrize(
    "handed",
    ['{"path": 7, "key": null, "lifetime": null, "confirm": false}', '{"path": "x", "confirm": "yes"}', "[]", "{"],
    ids=["path", "confirm", "list", "broken"],
)
def test_what_the_adopted_agent_is_handed_is_checked(home, handed):
    ours, theirs = socket.socketpair()
    with ours:
        child = subprocess.Popen([SCRIPT, "agent", "--adopt", "0"], stdin=theirs, stdout=subprocess.DEVNULL)
        theirs.close()
        ours.sendall(handed.encode() + b"\n")
        ours.settimeout(PATIENCE)
        said = ours.recv(1000).decode()
    assert child.wait(PATIENCE) == 2 and said.strip() and "Traceback" not in said
