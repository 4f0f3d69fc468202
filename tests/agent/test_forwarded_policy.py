"""Hardening round 6 through a real OpenSSH server, on every system (`system`: Linux, macOS and
FreeBSD simulated, and one that says nothing about a peer): what a process on a server can make the agent
do through the forwarded socket (never `stop`; under `--confirm` nothing but `ping` without the
person's answer), what it reads of the agent's machine (no path), and `assistant-auth ssh` when the
person's agent does not answer (said, never replaced silently). Skipped where sshd is missing."""

from __future__ import annotations

import os
import pathlib
import secrets
import subprocess
import threading

from tests.agent.conftest import RunningAgent
from tests.agent.fake_agent import FakeAgent
from tests.agent.openssh import Forwarded, SshServer, needs_openssh, remote
from tests.cli.test_cli import valid
from tests.commands import run_command
from tests.conftest import write_creds
from tests.waiting import PATIENCE
from tui.core.agent.client.ask import ask
from tui.core.agent.wire.protocol import Request

pytestmark = needs_openssh


def test_a_forwarded_connection_cannot_stop_the_agent(system, laptop, server, sshd):
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy())
    through = Forwarded(sshd, agent.path)
    try:
        refused = ask(Request("stop"), through.path)
        assert refused["ok"] is False and "not accepted through a forwarded connection" in refused["error"]
        assert ask(Request("ping"), agent.path)["ok"] is True and agent.process.poll() is None  # still serving
        # the same through `agent --stop` on the server
        env = {**os.environ, "ASSISTANT_AUTH_SOCK": through.path, "ASSISTANT_LANG": "en"}
        env.pop("ASSISTANT_AUTH_AGENT_PID", None)
        done = run_command(["agent", "--stop"], env=env)
        assert done.returncode == 2 and "--stop there" in done.stderr and done.stdout == ""
        assert agent.process.poll() is None
    finally:
        through.close()
        agent.stop()


def test_under_confirm_a_forwarded_connection_gets_only_ping(system, laptop, server, sshd):
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy(), "--confirm")
    through = Forwarded(sshd, agent.path)
    try:
        alive = ask(Request("ping"), through.path)
        origin = "forwarded" if system.places else "unknown"  # a system that says nothing: a stranger
        assert alive == {"v": 1, "ok": True, "alive": True, "asked_from": origin}  # no pid, path or identity
        for op in ("status", "events", "token"):
            said = ask(Request(op), through.path)
            assert said["ok"] is False and "no wizard is open" in said["error"], op
            assert "slots" not in said and "socket" not in said and "connections" not in said
    finally:
        through.close()
        agent.stop()


def test_forwarded_answers_carry_no_path_of_the_agents_machine(system, laptop, server, sshd):
    agent = RunningAgent(os.environ.copy())  # no sign-in on the laptop: the error would name its home
    through = Forwarded(sshd, agent.path)
    laptop_paths = [str(laptop), os.path.dirname(agent.path), os.path.expanduser("~") + "/"]
    try:
        refused = ask(Request("token"), through.path)
        assert refused["ok"] is False
        events = ask(Request("events"), through.path)
        status = ask(Request("status"), through.path)
        for said in (refused, events, status):
            text = repr(said)
            assert not any(path in text for path in laptop_paths), text
        assert events["socket"].startswith("…/agent.")  # said, without where
        local = ask(Request("events"), agent.path)  # on the agent's own machine (its key shown), the whole path
        assert local["socket"] == agent.path and ask(Request("status"), agent.path)["asked_from"] == "local"
        token = ask(Request("token"), agent.path)  # a token request shows no key: placed by the system alone
        assert (str(laptop) in token["error"]) is system.places
    finally:
        through.close()
        agent.stop()


def ssh_through(sshd: SshServer, env: dict, *command: str) -> subprocess.CompletedProcess:
    return run_command(
        ["ssh", *sshd.options(), sshd.host, *command], env=env, timeout=PATIENCE * 2, stdin=subprocess.DEVNULL
    )


def test_ssh_says_when_the_persons_agent_does_not_answer(laptop, server, sshd, tmp_path):
    write_creds(laptop, valid(server))
    server_home = tmp_path / "server-home"
    server_home.mkdir()
    stale = {**os.environ, "ASSISTANT_AUTH_SOCK": str(tmp_path / "gone.sock"), "ASSISTANT_LANG": "en"}
    done = ssh_through(sshd, stale, *remote(server_home, "token"))
    assert done.returncode == 0, done.stderr  # served, by an agent of its own…
    said = [line for line in done.stderr.splitlines() if "does not answer" in line]
    assert len(said) == 1 and "asks nobody" in said[0] and "Restart yours" in said[0]  # …and said, in one line
    none = {k: v for k, v in os.environ.items() if k != "ASSISTANT_AUTH_SOCK"} | {"ASSISTANT_LANG": "en"}
    quiet = ssh_through(sshd, none, *remote(server_home, "token"))
    assert quiet.returncode == 0 and "does not answer" not in quiet.stderr  # no agent at all: the silent own one


def test_ssh_looks_at_a_trickling_agent_for_its_bound_only(laptop, server, sshd, tmp_path):
    write_creds(laptop, valid(server))
    server_home = tmp_path / "server-home"
    server_home.mkdir()
    where = pathlib.Path(f"/tmp/aa-trickle-{secrets.token_hex(4)}")
    where.mkdir(mode=0o700)
    fake = FakeAgent(str(where / "agent.sock"), trickle=0.5)
    env = {**os.environ, "ASSISTANT_AUTH_SOCK": fake.path, "ASSISTANT_LANG": "en"}
    result: list[subprocess.CompletedProcess] = []
    worker = threading.Thread(target=lambda: result.append(ssh_through(sshd, env, *remote(server_home, "token"))))
    try:
        worker.start()
        worker.join(PATIENCE * 2)
        assert not worker.is_alive()  # before: each byte restarted its 10 s look, for ever
        done = result[0]
        assert done.returncode == 0 and "does not answer" in done.stderr, done.stderr
    finally:
        fake.close()
        where.rmdir()
