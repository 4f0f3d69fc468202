"""Hardening round 7, attacked by mechanism.

1. A client takes a token only from a socket its own user owns, whose other end is its own user's:
   another user who binds the documented path first (or rebinds a path a link still names) is
   refused by every client (token, exec, status, relay, doctor), in one line naming the path and
   its owner, exit 3; nothing of theirs is printed, handed to a program or written.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.agent.another_user import STOLEN, AnotherUsersAgent, needs_root
from tests.agent.openssh import SshServer, needs_openssh, remote
from tests.cli.test_cli import SCRIPT
from tests.conftest import write_creds

pytestmark = needs_root


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture
def trap(tmp_path):
    """Another user's socket at the path docs/agent.md's plain-ssh recipe used to name."""
    path = f"/tmp/assistant-auth-{os.getpid()}-{tmp_path.name}.sock"
    agent = AnotherUsersAgent(path)
    try:
        yield path
    finally:
        agent.stop()


def served_env(home, path: str) -> dict[str, str]:
    return {**os.environ, "ASSISTANT_AUTH_SOCK": path}


@pytest.mark.parametrize(
    "command",
    [
        ("token",),
        ("token", "--json"),
        ("exec", "--", "sh", "-c", "echo ran $ASSISTANT_ACCESS_TOKEN"),
        ("status",),
        ("status", "--json"),
        ("doctor", "--offline"),
    ],
    ids=["token", "token-json", "exec", "status", "status-json", "doctor"],
)
def test_a_socket_another_user_bound_is_never_believed(home, trap, command):
    done = run(*command, env=served_env(home, trap))
    assert STOLEN not in done.stdout + done.stderr
    assert "someone-else" not in done.stdout + done.stderr
    assert "belongs to nobody (uid 65534)" in done.stderr + done.stdout and trap in done.stderr + done.stdout
    assert "ran" not in done.stdout  # exec never ran the program
    assert "Served by the token agent on your own machine" not in done.stdout
    if command[0] in ("token", "exec"):
        assert done.returncode == 3


def test_the_relay_writes_nothing_from_another_users_socket(home, trap):
    done = run("relay", "--once", env=served_env(home, trap))
    assert done.returncode != 0 and "belongs to nobody" in done.stderr
    assert not (home / "credentials" / "assistant-code.json").exists()


def test_this_machines_own_sign_in_serves_and_says_why(home, trap, server):
    write_creds(home, {**server.issue_tokens(), "expires_at": 4102444800})
    done = run("token", env=served_env(home, trap))
    assert done.returncode == 0 and done.stdout.strip() == server.issued[-1][0]
    assert "belongs to nobody" in done.stderr  # said: why the variable's agent was not used


def test_a_socket_of_ours_whose_other_end_is_another_user_is_refused_too(home, tmp_path):
    """The owner check alone is not enough: a socket file the person owns (root gave it away here,
    as a rebinding or a mount could) whose listening process is another user's."""
    path = f"/tmp/assistant-auth-{os.getpid()}-peer.sock"
    agent = AnotherUsersAgent(path)
    try:
        os.chown(path, os.geteuid(), os.getegid())  # the file is ours now; its listener is still nobody's
        done = run("token", "--json", env=served_env(home, path))
        assert done.returncode == 3 and STOLEN not in done.stdout + done.stderr
        assert "belongs to nobody (uid 65534)" in done.stderr
    finally:
        agent.stop()


def test_a_registered_link_that_now_leads_to_another_users_socket(home, trap):
    """`forwarded/latest.sock` outlived its connection and its target path was bound again."""
    forwarded = home / "forwarded"
    forwarded.mkdir(parents=True, mode=0o700)
    (forwarded / "latest.sock").symlink_to(trap)
    done = run("token", env=served_env(home, str(forwarded / "latest.sock")))
    assert done.returncode == 3 and STOLEN not in done.stdout and "belongs to nobody" in done.stderr
    status = run("status", "--json", env=served_env(home, str(forwarded / "latest.sock")))
    assert status.returncode == 3 and "someone-else" not in status.stdout + status.stderr


@needs_openssh
def test_through_a_real_sshd_the_forward_that_lost_the_race_is_never_replaced_by_the_trap(agent, tmp_path):
    """The person's `ssh -R PATH:agent` finds PATH already bound by another user (the forward
    fails); the shell there still points at PATH: the client refuses it, never prints its token."""
    path = f"/tmp/assistant-auth-{os.getpid()}-race.sock"
    trap = AnotherUsersAgent(path)
    sshd = SshServer(tmp_path / "sshd")
    try:
        command = " ".join(remote(sshd.home, "token")).replace("env ", f"env ASSISTANT_AUTH_SOCK={path} ", 1)
        argv = ["ssh", *sshd.options(), "-R", f"{path}:{agent.path}", sshd.host, command]  # no ExitOnForwardFailure
        done = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
        assert STOLEN not in done.stdout + done.stderr
        assert done.returncode == 3 and "belongs to nobody (uid 65534)" in done.stderr
    finally:
        sshd.stop()
        trap.stop()
