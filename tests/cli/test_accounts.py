"""Named accounts on the command line (#44): two sign-ins in one region against the local
authorization server, as two subjects; `switch`, `token`, `exec`, `refresh`, `logout`, `status`
and `doctor` following the account; names refused at the door."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import run
from tests.conftest import write_creds
from tui.core.config.provider import provision_managed_provider
from tui.core.slots.choice import managed_slot
from tui.core.spec.keys import account_key, account_slot, region_storage_name
from tui.core.spec.regions import endpoints
from tui.demo.server import TOKEN_PATH


def sign_in(server, account: str, subject: str, *extra: str):
    server.auto_approve = 0.3
    server.subject = subject
    done = run("login", "--no-tui", "--no-browser", "--account", account, *extra)
    assert done.returncode == 0, done.stderr
    return done


def stored(home, slot: str) -> dict:
    return json.loads((home / "credentials" / f"{slot}.json").read_text())


def signed_in(home, server, region: str, name: str, subject: str) -> None:
    """An account as a sign-in leaves it (its file; the managed provider pointed at it), without
    the sign-in's wait, for the tests about what comes after one (`two_signed_in` signs in)."""
    tokens = {**server.issue_tokens(subject=subject), "expires_at": 4102444800}
    write_creds(home, tokens, name=account_slot(region, name))
    provision_managed_provider(account_key(region, name), region)


def test_two_accounts_in_one_region_each_in_its_own_slot_the_last_one_active(two_signed_in, server):
    two = two_signed_in
    work, personal = account_slot("cn", "work"), account_slot("cn", "personal")
    assert sorted(p.name for p in (two / "credentials").glob("*.json")) == sorted([f"{work}.json", f"{personal}.json"])
    assert managed_slot() == personal
    config = (two / "config.toml").read_text()
    assert f'key = "oauth/{personal}"' in config
    # beyond spec 2.6: a named account names its host in cn too (the current official client would
    # otherwise choose a region for a slot it does not know by its install marker)
    assert f'oauthHost = "{endpoints("cn").oauth_host}"' in config

    assert run("token").stdout.strip() == stored(two, personal)["access_token"]
    assert run("token", "--account", "work").stdout.strip() == stored(two, work)["access_token"]


def test_status_lists_every_account_with_the_active_one_marked(two, server):
    text = run("status")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    rows = [line for line in lines if line[2:].startswith(("work ", "personal ")) and "(cn)" not in line]
    assert not [line for line in lines if "(cn): valid" in line], lines  # each account once: in the Accounts block
    assert len(rows) == 2
    assert [row.split()[0] for row in rows] == ["*", "work"] or rows[0].startswith("* personal")  # sorted by name
    assert any(row.startswith("* personal") and "bob" in row and "valid" in row for row in rows)
    assert any(row.startswith("  work") and "alice" in row for row in rows)
    data = json.loads(run("status", "--json").stdout)
    accounts = {a["name"]: a for a in data["accounts"]}
    assert set(accounts) == {"work", "personal"}
    assert [a["name"] for a in data["accounts"] if a["active"]] == ["personal"]
    assert accounts["work"]["identity"] == "alice" and accounts["personal"]["identity"] == "bob"
    assert accounts["work"]["region"] == "cn" and accounts["work"]["state"] == "valid"
    assert data["managed_account"] == {"name": "personal", "region": "cn", "exists": True}
    assert "access_token" not in json.dumps(data["accounts"])


def test_switch_points_the_provider_and_changes_nothing_else(two, server):
    config = two / "config.toml"
    text = config.read_text()
    config.write_text("# mine, kept\n" + text.replace("\n", "\r\n") + '\r\n[providers.other]\r\ntype = "x"\r\n')
    before = {p.name: p.read_bytes() for p in (two / "credentials").iterdir()}
    done = run("switch", "work")
    assert done.returncode == 0, done.stderr
    assert "account work (cn) (alice)" in done.stdout and "official client" in done.stdout
    after = config.read_bytes()
    assert after.startswith(b"# mine, kept\r\n") and b'[providers.other]\r\ntype = "x"' in after
    assert b"\n" not in after.replace(b"\r\n", b"")  # still CRLF throughout
    assert {p.name: p.read_bytes() for p in (two / "credentials").iterdir()} == before  # no credential touched
    assert managed_slot() == account_slot("cn", "work")
    assert run("token").stdout.strip() == stored(two, account_slot("cn", "work"))["access_token"]
    exec_ = run("exec", "--", "sh", "-c", 'test -n "$ASSISTANT_ACCESS_TOKEN" && echo ok')
    assert exec_.returncode == 0 and exec_.stdout.strip() == "ok"
    again = run("switch", "work")
    assert again.returncode == 0 and "already uses account work (cn)" in again.stdout


@pytest.mark.parametrize("name", ["../x", "a/b", ".hidden", "", "two\nlines", "x" * 200, "Work", "-x", "a b", "é"])
def test_a_name_that_cannot_be_a_file_name_is_refused_and_nothing_written(home, server, name):
    for args in (
        ("login", "--no-tui", f"--account={name}"),
        ("switch", "--", name),
        ("token", f"--account={name}"),
        ("logout", "--yes", f"--account={name}"),
        ("inspect", f"--account={name}"),
    ):
        done = run(*args)
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "invalid account name" in lines[0], (args, done.stderr)
        assert "Traceback" not in done.stderr
    assert not (home / "credentials").exists() or list((home / "credentials").iterdir()) == []
    assert not (home / "config.toml").exists()
    assert server.grants() == []  # no sign-in was even asked for


def test_signing_in_again_to_a_signed_in_account_asks_or_needs_force(two, server):
    again = run("login", "--no-tui", "--account", "work")
    assert again.returncode == 2 and "--force" in again.stderr
    wizard = run("login", "--account", "work")  # the wizard's way asks the same, before it starts
    assert wizard.returncode == 2 and "--force" in wizard.stderr
    assert server.grants() == []  # neither started a sign-in
    server.subject = "alice-2"
    server.auto_approve = 0.3
    forced = run("login", "--no-tui", "--no-browser", "--account", "work", "--force")
    assert forced.returncode == 0, forced.stderr
    assert json.loads(run("status", "--json").stdout)["managed_account"]["name"] == "work"


def test_a_sign_in_without_account_stays_the_regions_default(two, server):
    server.auto_approve = 0.3
    server.subject = "carol"
    done = run("login", "--no-tui", "--no-browser")
    assert done.returncode == 0, done.stderr
    assert (two / "credentials" / "assistant-code.json").exists()
    data = json.loads(run("status", "--json").stdout)
    assert {a["name"] for a in data["accounts"]} == {"default", "work", "personal"}
    assert data["managed_account"] == {"name": "default", "region": "cn", "exists": True}
    assert run("switch", "personal").returncode == 0
    assert run("switch", "--region", "cn").returncode == 0  # the region's default account again
    assert managed_slot() == "assistant-code"
    assert "oauthHost" not in (two / "config.toml").read_text()  # cn's own slot: spec 2.6, no host


def test_accounts_in_both_regions_need_the_region_said(home, server):
    sign_in(server, "work", "alice")
    sign_in(server, "work", "alice-global", "--region", "global")
    assert (home / "credentials" / f"{account_slot('global', 'work')}.json").exists()
    config = (home / "config.toml").read_text()
    assert "oauthHost" in config  # global: the host is written
    ambiguous = run("switch", "work")
    assert ambiguous.returncode == 2 and "--region" in ambiguous.stderr
    assert run("token", "--account", "work").returncode == 2  # a name that does not fit: usage, everywhere
    done = run("switch", "work", "--region", "cn")
    assert done.returncode == 0, done.stderr
    assert managed_slot() == account_slot("cn", "work")
    global_token = run("token", "--account", "work", "--region", "global")
    assert global_token.stdout.strip() == stored(home, account_slot("global", "work"))["access_token"]


def test_switch_to_an_account_that_does_not_exist(two):
    done = run("switch", "nobody")
    assert done.returncode == 2  # an unknown name: usage, everywhere
    assert "No account named nobody" in done.stderr and "login --account nobody" in done.stderr


def test_refresh_and_logout_by_account(two_signed_in, server):
    two = two_signed_in
    work = account_slot("cn", "work")
    before = stored(two, work)
    refreshed = run("refresh", "--account", "work")
    assert refreshed.returncode == 0, refreshed.stderr
    assert stored(two, work)["refresh_token"] != before["refresh_token"]
    personal = stored(two, account_slot("cn", "personal"))
    out = run("logout", "--yes", "--account", "personal")  # the active one: switched away from, said (as gh does)
    assert out.returncode == 0, out.stderr
    assert "now uses account work (cn) (alice)" in out.stderr
    assert managed_slot() == work
    status = run("status")
    assert status.returncode == 0
    assert personal["access_token"] not in status.stdout + status.stderr
    doctor = json.loads(run("doctor", "--json", "--offline").stdout)
    checks = {check["name"]: check for check in doctor["checks"]}
    assert checks["accounts.active"]["status"] == "ok" and "work (cn)" in checks["accounts.active"]["finding"]
    assert checks["config.oauth_host"]["status"] == "ok"  # the key a real `login --account` wrote is ours (#52)
    assert checks["accounts.cn.work"]["status"] == "ok" and "alice" in checks["accounts.cn.work"]["finding"]


def test_a_hand_edited_provider_naming_a_missing_account_is_reported_not_repointed(home, server):
    write_creds(
        home, {**server.issue_tokens(subject="alice"), "expires_at": 4102444800}, name=region_storage_name("cn")
    )
    (home / "config.toml").write_text(
        '[providers."managed:assistant-code"]\ntype = "assistant"\nbase_url = "x"\n'
        'oauth = { storage = "file", key = "oauth/assistant-code-account-cn-ghost" }\n'
    )
    text = (home / "config.toml").read_bytes()
    status = run("status")
    assert "points at account ghost (cn)" in status.stdout
    data = json.loads(run("status", "--json").stdout)
    assert data["managed_account"] == {"name": "ghost", "region": "cn", "exists": False}
    assert [a for a in data["accounts"] if a["active"]] == []
    doctor = json.loads(run("doctor", "--json", "--offline").stdout)
    active = next(check for check in doctor["checks"] if check["name"] == "accounts.active")
    assert active["status"] == "fail" and "ghost (cn)" in active["finding"]
    assert "login --account ghost --region cn" in active["fix"]
    assert (home / "config.toml").read_bytes() == text  # reported, never repointed


def test_completion_offers_the_account_names(two):
    from tests.cli.test_account_cli import complete
    from tui.cli.options import complete_accounts

    assert complete_accounts("") == ["personal", "work"]
    assert complete_accounts("w") == ["work"]
    # through the shell's protocol, as bash calls it
    offered = complete("assistant-auth switch ", two)
    assert [word for word in offered if not word.startswith("-")] == ["personal", "work"]
    assert complete("assistant-auth token --account p", two) == ["personal"]
    assert complete("assistant-auth login --account w", two) == ["work"]


def test_refreshing_one_account_sends_only_its_refresh_token(two, server):
    work, personal = account_slot("cn", "work"), account_slot("cn", "personal")
    untouched = (two / "credentials" / f"{personal}.json").read_bytes()
    assert run("refresh", "--account", "work").returncode == 0
    assert server.count(TOKEN_PATH, "refresh_token") == 1
    assert (two / "credentials" / f"{personal}.json").read_bytes() == untouched
    assert stored(two, work)["access_token"] != json.loads(untouched)["access_token"]


def test_exec_by_account_puts_that_accounts_token_in_the_environment(two, server):
    work = stored(two, account_slot("cn", "work"))["access_token"]
    done = run("exec", "--account", "work", "--", "sh", "-c", 'printf %s "$ASSISTANT_ACCESS_TOKEN"')
    assert done.returncode == 0, done.stderr
    assert done.stdout == work  # not the active (personal) one
    assert run("exec", "--account", "nobody", "--", "true").returncode == 2


def test_token_json_names_the_account(two):
    data = json.loads(run("token", "--json").stdout)
    assert data["account"] == "personal" and data["slot"] == account_slot("cn", "personal") and data["region"] == "cn"
    assert json.loads(run("token", "--json", "--account", "work").stdout)["account"] == "work"
