"""The token agent as a person runs it: a real `assistant-auth agent --foreground` process on the
"laptop" (a home holding the sign-in, pointed at the local authorization server), and commands on
the "server" side (another home, empty, with ASSISTANT_AUTH_SOCK set)."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import tempfile

import pytest

from tests.agent.openssh import Forwarded, SshServer
from tests.cli.test_cli import valid
from tests.commands import run_command
from tests.conftest import terminate, write_creds
from tests.spawned import spawn_command
from tests.waiting import until
from tui.core.system import facts


class RunningAgent:
    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.process = spawn_command(
            ["agent", "--foreground", "--json", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            default_signals=True,
        )
        line = self.process.stdout.readline()
        assert line, self.process.stderr.read()
        found = json.loads(line)
        self.path: str = found["socket"]
        self.pid: int = found["pid"]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)
            terminate(self.process)


@pytest.fixture
def laptop(home, server):
    """The person's own machine: `home` (with the env pointed at the local server)."""
    return home


@pytest.fixture
def agent(laptop):
    running = RunningAgent(os.environ.copy())
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def server_home(tmp_path) -> pathlib.Path:
    where = tmp_path / "server-home"
    where.mkdir(mode=0o700)
    return where


def on_server(agent_path: str, server_home: pathlib.Path, **extra: str) -> dict[str, str]:
    """The environment of a shell on the server: its own empty home, the forwarded socket."""
    env = {**os.environ, "ASSISTANT_CODE_HOME": str(server_home), "ASSISTANT_AUTH_SOCK": agent_path, **extra}
    return env


def run_on_server(env: dict[str, str], *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    return run_command(args, env=env, timeout=timeout)


def files_under(where: pathlib.Path) -> list[str]:
    return sorted(str(p.relative_to(where)) for p in where.rglob("*"))


@pytest.fixture
def sshd(tmp_path):
    running = SshServer(tmp_path / "sshd")
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def forwarded(laptop, server, sshd):
    """The laptop's agent (whatever is signed in there, now or later) and a plain `ssh -R` to the
    test's sshd holding its socket forwarded: the forwarded path on the "server"."""
    agent = RunningAgent(os.environ.copy())
    through = Forwarded(sshd, agent.path)
    try:
        yield through.path
    finally:
        through.close()
        agent.stop()


@pytest.fixture
def forwarded_agent(laptop, server, sshd):
    """The laptop signed in, its agent running, and a plain `ssh -R` to the test's sshd holding the
    agent's socket forwarded: (the agent, the forward)."""
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy())
    through = Forwarded(sshd, agent.path)
    try:
        yield agent, through
    finally:
        through.close()
        agent.stop()


@pytest.fixture
def runtime(home, monkeypatch):
    where = pathlib.Path(tempfile.mkdtemp(prefix="aa-run-"))  # short: a socket's path is at most 108 bytes
    os.chmod(where, 0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(where))
    started: list[int] = []
    try:
        yield where, started
    finally:
        for pid in started:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        until(lambda: not any(alive(pid) for pid in started))
        subprocess.run(["rm", "-rf", str(where)], check=False)


def alive(pid: int) -> bool:
    """The process is there and not a zombie of ours."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return not handle.read().split(") ")[1].startswith("Z")
    except OSError:
        return False


# -- every system: the agent's own tests once more as macOS, FreeBSD and a system that says nothing --


class System:
    """The system a test's agent (and every command it runs) reads its facts from: this Linux,
    `none` (no peer credentials, no process table), or a simulated `darwin` or `freebsd`
    (`ASSISTANT_AUTH_SYSTEM`, `tui.core.system.facts`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def places(self) -> bool:
        """The system says which process a peer is (its pid, its program, its ssh connection)."""
        return self.name != facts.NONE

    def __repr__(self) -> str:
        return self.name


SYSTEMS = ["linux", facts.NONE, "darwin", "freebsd"]


@pytest.fixture(params=SYSTEMS)
def system(request, monkeypatch):
    """Each test that asks for it runs on every system: the variable for the processes it starts,
    the chosen system for agents in its own process."""
    name = request.param
    if name == "linux":
        monkeypatch.delenv(facts.VARIABLE, raising=False)
    else:
        monkeypatch.setenv(facts.VARIABLE, name)
    before = facts.use("" if name == "linux" else name)
    try:
        yield System(name)
    finally:
        facts.use_system(before)
