"""Named accounts through the token agent (#44): `token --account NAME` on a server gets that
account's token from the laptop's agent; the relay feeds the server's official client the account
chosen (or the active one); `--confirm`'s question names the account. A real agent process, and
for `ssh --relay --account` the real sshd."""

from __future__ import annotations

import json
import os
import shlex

import pytest

from tests.agent.conftest import RunningAgent, on_server, run_on_server
from tests.agent.openssh import SshServer, assistant_ssh, needs_openssh, relay_and_read, relaying_sshd
from tests.conftest import read_json, write_creds
from tui.app.screens.ask import asked_line
from tui.core.agent.wire.protocol import BadRequest, Request, parse_request
from tui.core.config.provider import provision_managed_provider
from tui.core.slots.selector import Selector
from tui.core.spec.keys import account_key, account_slot, region_key, region_storage_name
from tui.core.spec.regions import endpoints


def two_accounts(laptop, server) -> dict[str, dict]:
    """work (alice) and personal (bob) in cn on the laptop; work is the active one."""
    made = {}
    for name, subject in (("work", "alice"), ("personal", "bob")):
        made[name] = {**server.issue_tokens(subject=subject), "expires_at": 4102444800}
        write_creds(laptop, made[name], name=account_slot("cn", name))
    provision_managed_provider(account_key("cn", "work"), "cn")
    return made


@pytest.fixture
def accounts_agent(laptop, server):
    made = two_accounts(laptop, server)
    agent = RunningAgent(os.environ.copy())
    try:
        yield agent, made
    finally:
        agent.stop()


def test_token_by_account_through_the_agent(accounts_agent, server_home):
    agent, made = accounts_agent
    env = on_server(agent.path, server_home)
    assert run_on_server(env, "token").stdout.strip() == made["work"]["access_token"]  # the active one
    personal = run_on_server(env, "token", "--account", "personal")
    assert personal.returncode == 0, personal.stderr
    assert personal.stdout.strip() == made["personal"]["access_token"]
    in_region = run_on_server(env, "token", "--account", "personal", "--region", "cn", "--json")
    assert json.loads(in_region.stdout)["access_token"] == made["personal"]["access_token"]
    unknown = run_on_server(env, "token", "--account", "nobody")  # on the agent's own machine: said as it is
    assert unknown.returncode == 2 and "No account named nobody" in unknown.stderr
    assert not (server_home / "credentials").exists()  # nothing written on the "server"


@needs_openssh
def test_an_unknown_account_is_worded_for_the_server(laptop, server, forwarded, server_home):
    two_accounts(laptop, server)
    env = {**on_server(forwarded, server_home), "ASSISTANT_LANG": "en"}
    unknown = run_on_server(env, "token", "--account", "nobody")
    personal = run_on_server(env, "token", "--account", "personal")
    assert unknown.returncode == 2
    assert "no account named nobody on your own machine" in unknown.stderr
    assert str(laptop) not in unknown.stderr and "login --account" not in unknown.stderr
    assert personal.returncode == 0 and personal.stdout.strip()


def test_the_relay_feeds_the_servers_official_client_the_account_chosen(accounts_agent, server_home):
    agent, made = accounts_agent
    env = on_server(agent.path, server_home)
    target = server_home / "credentials" / "assistant-code.json"  # what the server's official client reads
    done = run_on_server(env, "relay", "--once", "--account", "personal")
    assert done.returncode == 0, done.stderr
    data = read_json(target)
    assert data["access_token"] == made["personal"]["access_token"] and data["refresh_token"] == ""
    again = run_on_server(env, "relay", "--once")  # the active account by default
    assert again.returncode == 0, again.stderr
    assert read_json(target)["access_token"] == made["work"]["access_token"]
    assert sorted(p.name for p in (server_home / "credentials").glob("*.json")) == ["assistant-code.json"]


def test_the_protocol_carries_an_account_and_its_region_and_nothing_more():
    request = parse_request(b'{"v":1,"op":"token","account":"work","region":"global"}\n')
    assert request.selector == Selector(account="work", region="global")
    assert request.asked_for() == "account work (global)"
    assert parse_request(b'{"v":1,"op":"token","account":"work"}\n').asked_for() == "account work"
    for bad in (
        b'{"v":1,"op":"token","account":"work","slot":"x"}\n',
        b'{"v":1,"op":"token","account":"work","provider":"x"}\n',
        b'{"v":1,"op":"token","account":7}\n',
    ):
        with pytest.raises(BadRequest):
            parse_request(bad)


def test_the_confirm_question_names_the_account():
    line = asked_line(3, "from this machine", Request("token", Selector(account="work")).asked_for())
    assert line == "Connection #3, from this machine, asks for a token of account work."
    line = asked_line(3, "from this machine", Request("token", Selector(account="work", region="cn")).asked_for())
    assert "account work (cn)" in line


@needs_openssh
def test_ssh_relay_account_through_the_real_sshd(laptop, server, tmp_path, server_home):
    made = two_accounts(laptop, server)
    relaying = relaying_sshd(tmp_path / "relaying", server_home)
    try:
        done = relay_and_read(relaying, server_home, "--account", "personal")
    finally:
        relaying.stop()
    assert done.returncode == 0, done.stderr
    relayed = json.loads(done.stdout)
    assert relayed["access_token"] == made["personal"]["access_token"] and relayed["refresh_token"] == ""


@needs_openssh
def test_ssh_relay_account_with_its_region_through_the_real_sshd(laptop, server, tmp_path, server_home):
    two_accounts(laptop, server)
    work_global = {**server.issue_tokens(subject="alice-g"), "expires_at": 4102444800}
    write_creds(laptop, work_global, name=account_slot("global", "work"))
    # the server's sessions know no test host: its global slot has the name the defaults give it there
    found = shlex.quote(str(server_home / "credentials"))
    relaying = relaying_sshd(tmp_path / "relaying", server_home)
    try:
        ambiguous = assistant_ssh(relaying, ["--relay", "--account", "work"], ["true"])
        script = f"until ls {found}/*.json >/dev/null 2>&1; do sleep 0.05; done; cat {found}/*.json"  # written atomically: there is whole
        done = assistant_ssh(
            relaying, ["--relay", "--account", "work", "--region", "global"], ["sh", "-c", shlex.quote(script)]
        )
    finally:
        relaying.stop()
    assert ambiguous.returncode == 2 and "Both regions have an account named work" in ambiguous.stderr
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["access_token"] == work_global["access_token"]
    assert "now uses the global region" in done.stderr
    assert [p.name for p in (server_home / "credentials").glob("*.json")] != ["assistant-code.json"]  # not cn's


@needs_openssh
def test_ssh_relay_says_when_the_server_cannot_run_it(laptop, server, tmp_path, server_home):
    two_accounts(laptop, server)
    bare = SshServer(tmp_path / "bare", extra=(f"SetEnv ASSISTANT_CODE_HOME={server_home} PATH=/usr/bin:/bin",))
    try:
        done = assistant_ssh(bare, ["--relay"], ["echo", "connected"])
    finally:
        bare.stop()
    assert done.returncode == 0 and done.stdout.strip() == "connected"
    assert "the relay does not run here: `assistant-auth` is not on this server's PATH" in done.stderr
    assert "command not found" not in done.stderr


@needs_openssh
def test_status_on_a_server_names_each_account_and_selects_one_by_name(laptop, server, forwarded, server_home):
    two_accounts(laptop, server)
    env = {**on_server(forwarded, server_home), "ASSISTANT_LANG": "en"}
    listed = run_on_server(env, "status")
    chosen = run_on_server(env, "status", "--account", "personal", "--json")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert any(line.startswith("* work (cn): valid") for line in lines), lines  # the active one
    assert any(line.startswith("  personal (cn): valid") for line in lines), lines
    data = json.loads(chosen.stdout)
    assert data["selected"] == account_slot("cn", "personal") and data["usable"] is True
    # through a real forward, as a script reads it (#52): the accounts and the active one
    assert [a["name"] for a in data["accounts"] if a["active"]] == ["work"]
    assert {a["name"] for a in data["accounts"]} == {"work", "personal"}
    assert data["managed_account"] == {"name": "work", "region": "cn", "exists": True}
    for args in (("token", "--account", "nobody"), ("status", "--account", "nobody"), ("exec", "--account", "nobody")):
        refused = run_on_server(env, *(args + (("--", "true") if args[0] == "exec" else ())))
        assert refused.returncode == 2 and "no account named nobody on your own machine" in refused.stderr, args


def test_switch_on_a_server_served_by_the_agent_points_at_the_agent_not_at_a_sign_in_here(accounts_agent, server_home):
    agent, _made = accounts_agent
    # the agent answers as serving another home: this one is a server (a home the agent's files are not)
    done = run_on_server({**on_server(agent.path, server_home), "ASSISTANT_LANG": "en"}, "switch", "work")
    assert done.returncode == 2
    assert "token --account work" in done.stderr and "ssh --relay --account work" in done.stderr
    assert "login" not in done.stderr
    assert not (server_home / "config.toml").exists()


def test_status_json_on_a_server_names_the_accounts_and_the_active_one(accounts_agent, server_home):
    agent, made = accounts_agent
    env = on_server(agent.path, server_home)
    done = run_on_server(env, "status", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    accounts = {a["name"]: a for a in data["accounts"]}
    assert set(accounts) == {"work", "personal"}
    assert [a["name"] for a in data["accounts"] if a["active"]] == ["work"]
    assert accounts["personal"]["identity"] == "bob" and accounts["personal"]["region"] == "cn"
    assert accounts["work"]["slot"] == account_slot("cn", "work") and accounts["work"]["usable"] is True
    assert data["managed_account"] == {"name": "work", "region": "cn", "exists": True}
    assert made["work"]["access_token"] not in done.stdout
    assert made["work"]["refresh_token"] not in done.stdout
    chosen = json.loads(run_on_server(env, "status", "--json", "--account", "personal").stdout)
    assert chosen["selected"] == account_slot("cn", "personal")


def test_a_name_that_does_not_fit_is_a_usage_error_through_the_agent(accounts_agent, server_home, laptop, server):
    agent, made = accounts_agent
    write_creds(
        laptop,
        {**server.issue_tokens(subject="alice-g"), "expires_at": 4102444800},
        name=account_slot("global", "work"),
    )
    env = on_server(agent.path, server_home)
    for name in ("nobody", "work"):  # unknown; in both regions without --region
        for args in (
            ("token", "--account", name),
            ("token", "--account", name, "--json"),
            ("exec", "--account", name, "--", "true"),
            ("status", "--account", name),
            ("status", "--json", "--account", name),
            ("relay", "--once", "--account", name),
        ):
            done = run_on_server(env, *args)
            assert done.returncode == 2, (args, done.stdout, done.stderr)
            assert "Traceback" not in done.stderr and str(laptop) not in done.stderr
    assert not (server_home / "credentials").exists()  # nothing written on the "server"


def test_a_global_account_is_relayed_where_the_official_client_reads_global(
    accounts_agent, server_home, laptop, server
):
    agent, made = accounts_agent
    work_global = {**server.issue_tokens(subject="alice-g"), "expires_at": 4102444800}
    write_creds(laptop, work_global, name=account_slot("global", "work"))
    env = on_server(agent.path, server_home)
    done = run_on_server(env, "relay", "--once", "--account", "work", "--region", "global")
    assert done.returncode == 0, done.stderr
    cn_file = server_home / "credentials" / f"{region_storage_name('cn')}.json"
    global_file = server_home / "credentials" / f"{region_storage_name('global')}.json"
    assert not cn_file.exists()  # never a global token where the official client would send it to the cn API
    assert read_json(global_file)["access_token"] == work_global["access_token"]
    assert "now uses the global region" in done.stderr
    config = (server_home / "config.toml").read_text()
    assert f'key = "{region_key("global")}"' in config and endpoints("global").base_url in config
    # a cn account afterwards: the official client here reads global now, and nothing of this
    # machine's own is there, so it is pointed back, its cn slot filled
    back = run_on_server(env, "relay", "--once", "--account", "personal")
    assert back.returncode == 0, back.stderr
    assert read_json(cn_file)["access_token"] == made["personal"]["access_token"]
    assert f'key = "{region_key("cn")}"' in (server_home / "config.toml").read_text()


def test_the_relay_never_moves_the_official_client_off_a_sign_in_of_the_server(
    accounts_agent, server_home, laptop, server
):
    agent, _made = accounts_agent
    write_creds(
        laptop,
        {**server.issue_tokens(subject="alice-g"), "expires_at": 4102444800},
        name=account_slot("global", "work"),
    )
    env = on_server(agent.path, server_home)
    own = {**server.issue_tokens(subject="server-own"), "expires_at": 4102444800}
    os.environ["ASSISTANT_CODE_HOME"], saved = str(server_home), os.environ["ASSISTANT_CODE_HOME"]
    try:
        write_creds(server_home, own, name=region_storage_name("cn"))
        provision_managed_provider(region_key("cn"), "cn")
    finally:
        os.environ["ASSISTANT_CODE_HOME"] = saved
    config = (server_home / "config.toml").read_bytes()
    done = run_on_server(env, "relay", "--once", "--account", "work", "--region", "global")
    assert done.returncode == 1
    assert "this machine's own sign-in in cn" in done.stderr and "assistant-auth logout --region cn" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert (server_home / "config.toml").read_bytes() == config
    assert read_json(server_home / "credentials" / f"{region_storage_name('cn')}.json") == own
    assert not (server_home / "credentials" / f"{region_storage_name('global')}.json").exists()
    by_slot = run_on_server(
        env, "relay", "--once", "--account", "work", "--region", "global", "--slot", region_storage_name("cn")
    )
    assert by_slot.returncode == 2  # --account goes with --region only
    wrong = run_on_server(env, "relay", "--once", "--region", "global", "--slot", region_storage_name("cn"))
    assert wrong.returncode == 2


def test_on_a_server_an_account_command_advises_what_fits_there(accounts_agent, server_home):
    agent, _made = accounts_agent
    env = {**on_server(agent.path, server_home), "ASSISTANT_LANG": "en"}
    for args in (("logout", "--account", "work", "--yes"), ("inspect", "--account", "work")):
        done = run_on_server(env, *args)
        assert done.returncode == 2, done.stderr
        assert "no account named work on this machine: its tokens come from the token agent" in done.stderr
        assert "login" not in done.stderr  # never "sign in here"
    plain = run_on_server(env, "logout", "--yes")
    assert plain.returncode == 1 and "`assistant-auth logout` there signs out" in plain.stderr
    assert "assistant-auth login" not in plain.stderr


@needs_openssh
def test_a_relay_refused_on_the_laptop_is_worded_for_the_server(laptop, server, forwarded, server_home):
    two_accounts(laptop, server)
    env = {**on_server(forwarded, server_home), "ASSISTANT_LANG": "en"}
    done = run_on_server(env, "relay", "--once", "--region", "global")
    assert done.returncode == 1, done.stderr
    assert "not signed in on your own machine: run `assistant-auth login --region global` there" in done.stderr
    assert str(laptop) not in done.stderr and "credentials not found" not in done.stderr
    token = run_on_server(env, "token", "--region", "global")
    assert token.returncode == 1 and "run `assistant-auth login --region global` there" in token.stderr
