"""One exit table, one answer (#58 10): every command that hands out a token (`token`, `exec`,
`refresh`) against every kind of failure, on this machine and (`token`, `exec`) on a server
through the token agent, compared with the table of docs/commands.md ("Exit codes, one rule"):
the code comes from the kind of failure, wherever it is met."""

from __future__ import annotations

import fcntl
import os

import pytest

from tests.agent.conftest import RunningAgent, on_server
from tests.cli.test_cli import expired, valid
from tests.commands import run_command
from tests.conftest import write_creds
from tests.lock_holder import holding
from tests.waiting import PATIENCE
from tui.core.config.provider import provision_managed_provider
from tui.core.errors import EXIT, EXIT_SIGN_IN, EXIT_TRANSIENT, EXIT_USAGE, Problem
from tui.core.spec.keys import account_key, account_slot, region_storage_name


def _not_signed_in(home, server, env):
    return []


def _rejected(home, server, env):
    write_creds(home, {**expired(server), "refresh_token": "never-issued"})
    return []


def _damaged(home, server, env):
    path = write_creds(home, {})
    path.write_text("{not json")
    return []


def _unknown_slot(home, server, env):
    write_creds(home, valid(server))
    return ["--slot", "no-such-slot"]


def _unknown_provider(home, server, env):
    write_creds(home, valid(server))
    return ["--provider", "no-such-provider"]


def _unknown_account(home, server, env):
    write_creds(home, valid(server))
    return ["--account", "nosuch"]


def _ambiguous_account(home, server, env):
    for region in ("cn", "global"):
        write_creds(home, valid(server), account_slot(region, "work"))
    return ["--account", "work"]


def _invalid_key(home, server, env):
    """A key that is no slot's name with a host of its own: spec 4.5 would fall back to the
    default slot and send its tokens to that host; refused (a key with the default host falls
    back, as the spec says, and is no failure)."""
    write_creds(home, valid(server))
    (home / "config.toml").write_text(
        '[providers."managed:assistant-code"]\ntype = "assistant"\nbase_url = "x"\n'
        'oauth = { storage = "file", key = "not/a slot", oauthHost = "https://elsewhere.example" }\n'
    )
    return []


def _locked(home, server, env):
    write_creds(home, expired(server))
    lock = home / "credentials" / f"{region_storage_name('cn')}.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # held by this test process: another process, for the command
    env["ASSISTANT_LOCK_TIMEOUT"] = "1"
    return []


def _unmet(home, server, env):
    write_creds(home, valid(server))
    return ["--min-ttl", str(server.access_ttl + 600)]


def _config_unreadable(home, server, env):
    write_creds(home, valid(server))
    write_creds(home, valid(server), account_slot("cn", "work"))
    provision_managed_provider(account_key("cn", "work"), "cn")
    config = home / "config.toml"
    config.unlink()
    config.mkdir()
    return []


def _setting(home, server, env):
    write_creds(home, expired(server))
    env["SSL_CERT_FILE"] = str(home / "no-such-bundle.pem")
    return []


def _transient(home, server, env):
    write_creds(home, expired(server))
    server.stop()
    return []


FAILURES = {
    Problem.NOT_SIGNED_IN: _not_signed_in,
    Problem.REJECTED: _rejected,
    Problem.DAMAGED: _damaged,
    Problem.UNKNOWN_SLOT: _unknown_slot,
    Problem.UNKNOWN_PROVIDER: _unknown_provider,
    Problem.UNKNOWN_ACCOUNT: _unknown_account,
    Problem.AMBIGUOUS_ACCOUNT: _ambiguous_account,
    Problem.INVALID_KEY: _invalid_key,
    Problem.LOCKED: _locked,
    Problem.UNMET: _unmet,
    Problem.CONFIG: _config_unreadable,
    Problem.SETTING: _setting,
    "transient": _transient,
}
TABLE = {**EXIT, "transient": EXIT_TRANSIENT}  # the table docs/commands.md states, by kind


def test_the_table_is_the_documented_one():
    assert {TABLE[kind] for kind in (Problem.NOT_SIGNED_IN, Problem.REJECTED, Problem.DAMAGED)} == {EXIT_SIGN_IN}
    usage = (Problem.UNKNOWN_SLOT, Problem.UNKNOWN_ACCOUNT, Problem.AMBIGUOUS_ACCOUNT, Problem.UNMET, Problem.CONFIG)
    assert {TABLE[kind] for kind in usage} == {EXIT_USAGE}
    assert TABLE[Problem.LOCKED] == TABLE["transient"] == EXIT_TRANSIENT


def test_the_selectors_words_are_the_kinds():
    from tui.core.slots import selector

    assert (selector.NOT_SIGNED_IN, selector.UNKNOWN_SLOT) == (Problem.NOT_SIGNED_IN, Problem.UNKNOWN_SLOT)


USAGE_OF_A_NAME = (Problem.UNKNOWN_SLOT, Problem.UNKNOWN_PROVIDER, Problem.UNKNOWN_ACCOUNT, Problem.AMBIGUOUS_ACCOUNT)


def _commands(kind: str, here: bool) -> tuple[str, ...]:
    """The commands a kind of failure is met by: `status` reports a slot (1 when it is not
    usable), so it meets only the names that do not fit (2), as the others do."""
    names = ("token", "exec", "refresh") if here else ("token", "exec")
    if kind == Problem.UNMET:
        names = ("token", "exec")  # refresh has no --min-ttl
    return names + (("status",) if kind in USAGE_OF_A_NAME else ())


def _command(name: str, extra: list[str]) -> list[str]:
    if name == "exec":
        return ["exec", *extra, "--", "true"]
    return [name, *extra]


@pytest.mark.parametrize("kind", list(FAILURES))
def test_every_command_here_exits_as_the_table_says(home, server, kind):
    env = dict(os.environ)
    extra = FAILURES[kind](home, server, env)
    commands = _commands(kind, here=True)
    got = {}
    for name in commands:
        done = run_command(_command(name, extra), env=env, timeout=PATIENCE)
        got[name] = (done.returncode, done.stderr.strip()[-300:])
    assert {name: code for name, (code, _) in got.items()} == dict.fromkeys(commands, TABLE[kind]), got


AGENT_FAILURES = [
    kind
    for kind in FAILURES
    if kind not in (Problem.SETTING,)  # the agent's own setting: below
]


@pytest.mark.parametrize("kind", AGENT_FAILURES)
def test_every_command_on_a_server_exits_as_the_table_says(home, server, tmp_path, kind):
    env = dict(os.environ)
    extra = FAILURES[kind](home, server, env)
    agent = RunningAgent(env)
    server_home = tmp_path / "server-home"
    server_home.mkdir(mode=0o700)
    try:
        there = on_server(agent.path, server_home)
        got = {}
        for name in _commands(kind, here=False):
            done = run_command(_command(name, extra), env=there, timeout=PATIENCE)
            got[name] = (done.returncode, done.stderr.strip()[-300:])
    finally:
        agent.stop()
    assert {name: code for name, (code, _) in got.items()} == dict.fromkeys(_commands(kind, False), TABLE[kind]), got


def test_switch_exits_three_on_a_held_lock_by_name_and_by_region(home, server):
    """`switch --region R` exited 1 where `switch NAME` exited 3 for config.toml's lock held."""
    write_creds(home, valid(server), account_slot("cn", "work"))
    write_creds(home, valid(server), region_storage_name("global"))
    write_creds(home, valid(server))
    with holding(home):  # config.toml's lock, held by another command
        env = {**os.environ, "ASSISTANT_LOCK_TIMEOUT": "0.3"}
        for words in (["switch", "work"], ["switch", "--region", "global"]):
            done = run_command([*words], env=env, timeout=PATIENCE)
            assert done.returncode == EXIT_TRANSIENT and "Gave up after" in done.stderr, (words, done.stderr)


def test_inspect_of_an_account_that_is_not_there_is_usage(home):
    done = run_command(["inspect", "--account", "nosuch"], timeout=PATIENCE)
    assert done.returncode == EXIT_USAGE, done.stderr
