"""Living on a server across reconnects (#43, item 5), through a real sshd: each `assistant-auth
ssh` registers its forwarded socket at the server's stable place (`forwarded/latest.sock` leads to
the newest live connection) and removes it when it ends; a shell whose ASSISTANT_AUTH_SOCK names a
connection that has ended (yesterday's tmux session) gets its tokens through the newest live one
and says so in one line; with none live, exit 3 naming both; `-N` sets up and cleans up the same."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess

import pytest

from tests.agent.conftest import RunningAgent
from tests.agent.openssh import assistant_ssh, needs_openssh
from tests.cli.test_cli import SCRIPT, valid
from tests.commands import run_command
from tests.conftest import default_signals, terminate, write_creds
from tests.waiting import PATIENCE, until
from tui.core.agent.client.ask import AgentUnavailable, ask
from tui.core.agent.wire.protocol import Request

pytestmark = needs_openssh


def answers(path: str) -> bool:
    try:
        return ask(Request("ping"), path, timeout=5)["ok"] is True
    except AgentUnavailable:
        return False


class Connection:
    """`assistant-auth ssh -N HOST` in the background: the forward, registered on the server."""

    def __init__(self, sshd, agent_path: str) -> None:
        registered = sshd.home / "forwarded"
        before = set(registered.glob("*.sock")) if registered.exists() else set()
        env = {**os.environ, "ASSISTANT_AUTH_SOCK": agent_path}
        self.process = subprocess.Popen(
            [SCRIPT, "ssh", *sshd.options(), "-N", sshd.host],
            env=env,
            stdin=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=default_signals,
        )
        until(lambda: registered.exists() and set(registered.glob("*.sock")) - before - {registered / "latest.sock"})
        (self.link,) = set(registered.glob("*.sock")) - before - {registered / "latest.sock"}
        self.path = os.readlink(self.link)
        until(lambda: answers(self.path))

    def end(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(PATIENCE)
        until(lambda: not self.link.exists() and not os.path.lexists(self.path))


def on_server(sshd, sock: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ASSISTANT_CODE_HOME": str(sshd.home), "ASSISTANT_AUTH_SOCK": sock, "ASSISTANT_LANG": "en"}
    return run_command(args, env=env, timeout=PATIENCE)


def test_a_stale_tmux_variable_follows_the_newest_live_connection(laptop, server, sshd):
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy())
    latest = sshd.home / "forwarded" / "latest.sock"
    first = Connection(sshd, agent.path)
    second = None
    try:
        until(lambda: link_of(latest) == first.path)  # registered: the link first, then latest
        assert stat_mode(sshd.home / "forwarded") == 0o700
        second = Connection(sshd, agent.path)
        until(lambda: link_of(latest) == second.path)  # the newest
        first.end()  # yesterday's connection: gone, its registration with it
        assert os.readlink(latest) == second.path
        stale = on_server(sshd, first.path, "token")  # the tmux pane still names the first one
        assert stale.returncode == 0 and stale.stdout.strip() == server.issued[-1][0], stale.stderr
        said = [line for line in stale.stderr.splitlines() if line]
        assert len(said) == 1 and f"the connection at {first.path} has ended" in said[0] and second.path in said[0]
        stable = on_server(sshd, str(latest), "token")  # the stable path: no line at all
        assert stable.returncode == 0 and stable.stderr == ""
        status = on_server(sshd, first.path, "status")
        assert status.returncode == 0 and "Served by the token agent on your own machine" in status.stdout
        second.end()
        second = None
        until(lambda: not os.path.lexists(latest))  # no connection left: no latest
        none = on_server(sshd, first.path, "token")
        assert none.returncode == 3 and first.path in none.stderr and str(latest) in none.stderr
    finally:
        for connection in (first, second):
            if connection is not None and connection.process.poll() is None:
                terminate(connection.process)
        agent.stop()


def test_a_plain_command_registers_while_it_runs_and_cleans_up(laptop, server, sshd):
    write_creds(laptop, valid(server))
    env = {k: v for k, v in os.environ.items() if k != "ASSISTANT_AUTH_SOCK"}
    script = 'readlink "$ASSISTANT_CODE_HOME/forwarded/latest.sock"; printf "%s\\n" "$ASSISTANT_AUTH_SOCK"'
    done = assistant_ssh(sshd, [], ["sh", "-c", f"'{script}'"], env, timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    linked, variable = done.stdout.split()
    assert linked == variable  # while it ran, latest led to its own socket
    assert list((sshd.home / "forwarded").iterdir()) == []  # and nothing is left


def link_of(path: pathlib.Path) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def stat_mode(path: pathlib.Path) -> int:
    return os.stat(path).st_mode & 0o777


@pytest.mark.parametrize("kind", ["file", "forwarded-file"])
def test_a_server_home_that_cannot_take_the_registration_loses_only_it(laptop, server, sshd, kind):
    """A home where the registration cannot be written (a full disk, a read-only or NFS home
    that refuses the link, taken here by a file where the home or its `forwarded` directory
    should be): the connection, its variable and `token` work, nothing is said about it, and
    what was there is left as it was."""
    write_creds(laptop, valid(server))
    env = {k: v for k, v in os.environ.items() if k != "ASSISTANT_AUTH_SOCK"}
    sshd.home.parent.mkdir(parents=True, exist_ok=True)
    if kind == "file":
        sshd.home.write_text("not a directory\n")
    else:
        sshd.home.mkdir()
        (sshd.home / "forwarded").write_text("not a directory\n")
    before = sshd.home.read_text() if kind == "file" else None
    script = 'assistant-auth token >/dev/null && printf "%s\\n" "$ASSISTANT_AUTH_SOCK"'
    done = assistant_ssh(
        sshd, [], ["PATH=" + os.path.dirname(SCRIPT) + ":$PATH", "sh", "-c", f"'{script}'"], env, timeout=PATIENCE
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("/tmp/assistant-auth-")  # the forwarded socket, served
    assert done.stderr == "", done.stderr  # the registration's failure is quiet
    if before is not None:
        assert sshd.home.read_text() == before
