"""Messages by cause, right for where they are read (#43): on a server served by the agent (through
a real sshd's forward), no message advises `assistant-auth login` there or shows the laptop's
paths; `--slot nope` is a usage error; `refresh` says the refresh happens on the person's own
machine (with the agent, or with the relay's file); `login` there asks first, `--force` in scripts.
The messages by cause on every system (`system`)."""

from __future__ import annotations

import json
import os
import subprocess

from tests.agent.openssh import needs_openssh
from tests.cli.test_cli import expired, valid
from tests.commands import run_command
from tests.conftest import write_creds
from tests.waiting import PATIENCE

pytestmark = needs_openssh


def on_server(path: str, server_home, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ASSISTANT_CODE_HOME": str(server_home), "ASSISTANT_AUTH_SOCK": path, "ASSISTANT_LANG": "en"}
    return run_command(args, env=env, timeout=PATIENCE, stdin=subprocess.DEVNULL)


def never_sends_to_the_server(done: subprocess.CompletedProcess, laptop) -> None:
    assert str(laptop) not in done.stderr and os.path.expanduser("~") + "/" not in done.stderr
    for line in done.stderr.splitlines():  # advice to sign in always says where: on your own machine
        assert "assistant-auth login" not in line or "there" in line, line


def test_not_signed_in_on_your_own_machine(system, forwarded, laptop, server_home):
    done = on_server(forwarded, server_home, "token")
    assert done.returncode == 1 and "not signed in on your own machine: run `assistant-auth login` there" in done.stderr
    never_sends_to_the_server(done, laptop)


def test_a_rejected_sign_in_is_to_be_made_again_there(system, forwarded, laptop, server, server_home):
    write_creds(laptop, expired(server, refresh_token="rt_unknown_to_the_server"))
    done = on_server(forwarded, server_home, "token")
    assert done.returncode == 1 and "your sign-in on your own machine was rejected" in done.stderr
    never_sends_to_the_server(done, laptop)


def test_an_unknown_slot_is_a_usage_error(system, forwarded, laptop, server, server_home):
    write_creds(laptop, valid(server))
    done = on_server(forwarded, server_home, "token", "--slot", "nope")
    assert done.returncode == 2 and "no slot named nope on your own machine" in done.stderr
    never_sends_to_the_server(done, laptop)


def test_refresh_on_a_server_says_where_the_refresh_happens(forwarded, laptop, server, server_home):
    write_creds(laptop, valid(server))
    done = on_server(forwarded, server_home, "refresh")
    assert done.returncode == 2 and "refreshes them there" in done.stderr
    assert "official" not in done.stderr.lower() and "kimi" not in done.stderr.lower()


def test_refresh_of_the_relays_file_says_where_the_refresh_happens(home, server_home):
    relayed = {"access_token": "relayed", "refresh_token": "", "expires_in": 0, "expires_at": 4102444800}
    write_creds(server_home, relayed)
    env = {k: v for k, v in os.environ.items() if k != "ASSISTANT_AUTH_SOCK"}
    env.update(ASSISTANT_CODE_HOME=str(server_home), ASSISTANT_LANG="en")
    done = run_command(["refresh"], env=env, timeout=PATIENCE)
    assert done.returncode == 2 and "filled by the relay" in done.stderr


def test_login_on_a_server_asks_first_and_stores_nothing_without_force(forwarded, laptop, server, server_home):
    done = on_server(forwarded, server_home, "login", "--no-tui")
    assert done.returncode == 2
    assert "signing in here stores a refresh token on this machine" in done.stderr and "--force" in done.stderr
    assert not (server_home / "credentials").exists()
    status = json.loads(on_server(forwarded, server_home, "status", "--json").stdout)
    assert status["refresh_token_stored_here"] is False
