"""A working day with several accounts (#52), as a `gh auth` user walks it: doctor on a named
account, exit codes of a name that does not fit, the active account signed out of, bare `switch`,
the same person signed in twice, the region `login --account` chose, accounts named as accounts."""

from __future__ import annotations

import json
import os
import pty
import subprocess

from tests.cli.test_accounts import sign_in, signed_in, stored
from tests.cli.test_cli import SCRIPT, run
from tui.core.agent.view import Snapshot, slot_lines
from tui.core.person.overview import away_text
from tui.core.signin.record import Record
from tui.core.slots.choice import managed_slot
from tui.core.spec.keys import account_slot, region_storage_name
from tui.core.spec.regions import Region, endpoints
from tui.demo.server import DEVICE_PATH


def test_doctor_knows_a_named_accounts_key_as_ours(two, server):
    done = run("doctor", "--json")
    checks = {check["name"]: check for check in json.loads(done.stdout)["checks"]}
    assert checks["config.oauth_host"]["status"] == "ok", checks["config.oauth_host"]
    assert done.returncode == 0, done.stdout
    assert "was not made for" not in run("doctor").stdout
    assert run("switch", "work").returncode == 0
    assert run("doctor").returncode == 0


def test_doctor_still_catches_an_account_key_naming_another_regions_host(two, server):
    config = two / "config.toml"
    cn_host, global_host = endpoints("cn").oauth_host, endpoints("global").oauth_host
    assert cn_host != global_host
    config.write_text(config.read_text().replace(f'oauthHost = "{cn_host}"', f'oauthHost = "{global_host}"'))
    done = run("doctor")
    assert done.returncode == 1
    personal = account_slot("cn", "personal")
    assert f"its key oauth/{personal} was not made for oauthHost {global_host}" in done.stdout
    assert "assistant-auth switch personal --region cn" in done.stdout  # a next step that clears it
    assert run("switch", "work").returncode == 0 and run("switch", "personal").returncode == 0
    assert run("doctor").returncode == 0


COMMANDS = [
    ("token",),
    ("token", "--json"),
    ("exec", "--", "true"),
    ("refresh",),
    ("inspect",),
    ("status",),
    ("status", "--json"),
    ("logout", "--yes"),
]


def test_a_name_that_does_not_fit_is_a_usage_error_in_every_command(home, server):
    signed_in(home, server, "cn", "work", "alice")
    signed_in(home, server, "global", "work", "alice-global")
    for name in ("nobody", "work"):  # unknown; in both regions without --region
        for command in COMMANDS:
            args = [command[0], "--account", name, *command[1:]]
            done = run(*args)
            assert done.returncode == 2, (args, done.stdout, done.stderr)
            assert "Traceback" not in done.stderr
        for args in (("switch", name),):
            assert run(*args).returncode == 2, args
    assert len(list((home / "credentials").glob("*.json"))) == 2  # nothing signed out or written


def test_signing_out_of_the_active_account_switches_to_another_as_gh_does(two, server):
    work, personal = account_slot("cn", "work"), account_slot("cn", "personal")
    assert managed_slot() == personal
    done = run("logout", "--account", "personal", "--yes")
    assert done.returncode == 0, done.stderr
    assert "Signed out: removed" in done.stderr
    assert "now uses account work (cn) (alice)" in done.stderr and "official client" in done.stderr
    assert managed_slot() == work
    assert run("token").stdout.strip() == stored(two, work)["access_token"]
    status = json.loads(run("status", "--json").stdout)
    assert [a["name"] for a in status["accounts"] if a["active"]] == ["work"]
    # the last one: nothing to switch to; what is said names the account and the exact sign-in
    last = run("logout", "--account", "work", "--yes")
    assert last.returncode == 0, last.stderr
    assert "still names account work (cn)" in last.stderr
    assert "assistant-auth login --account work --region cn" in last.stderr
    token = run("token")
    assert token.returncode == 1
    assert "assistant-auth login --account work --region cn" in token.stderr, token.stderr
    text = run("status")
    assert "To sign in: assistant-auth login --account work --region cn" in text.stdout
    assert "To sign in: assistant-auth login\n" not in text.stdout


def test_signing_out_of_another_account_keeps_the_active_one(two, server):
    done = run("logout", "--account", "work", "--yes")
    assert done.returncode == 0, done.stderr
    assert "The managed provider uses account personal (cn)." in done.stderr
    assert managed_slot() == account_slot("cn", "personal")


def test_a_refresh_names_the_account_not_its_file(two, server):
    done = run("refresh", "--account", "work")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Refreshed work (cn): access token expires ")
    assert "assistant-code-account" not in done.stdout
    assert json.loads(run("refresh", "--account", "work", "--json").stdout)["slot"] == account_slot("cn", "work")


def test_the_agents_slots_panel_names_each_account():
    snapshot = Snapshot.parse(
        {},
        {
            "slots": [
                {"name": account_slot("cn", "work"), "region": "cn", "usable": True, "identity": "alice"},
                {"name": account_slot("cn", "personal"), "region": "cn", "usable": True, "identity": "bob"},
                {"name": region_storage_name("cn"), "region": "cn", "usable": False},
                {"name": "assistant-code-account-cn-../x\n", "region": "cn", "usable": True},
            ]
        },
    )
    lines = slot_lines(snapshot)
    assert lines[:3] == ["work (cn): usable · alice", "personal (cn): usable · bob", "cn: not usable"]
    assert lines[3].startswith("cn: usable")  # a name that is no account's: its region, one line


def test_bare_switch_toggles_between_two_accounts_and_asks_among_more(two, server):
    work, personal = account_slot("cn", "work"), account_slot("cn", "personal")
    assert managed_slot() == personal
    done = run("switch")
    assert done.returncode == 0 and "now uses account work (cn) (alice)" in done.stdout
    assert managed_slot() == work
    assert run("switch").returncode == 0 and managed_slot() == personal  # a toggle
    signed_in(two, server, "global", "team", "carol")  # a third, in the other region: now the active one
    assert managed_slot() == account_slot("global", "team")
    done = run("switch")  # no terminal: the names to choose from, nothing switched
    assert done.returncode == 2
    assert "say which account (personal (cn), work (cn), team (global))" in done.stderr
    assert managed_slot() == account_slot("global", "team")
    in_cn = run("switch", "--region", "cn")  # cn's own slot has no sign-in: cn's accounts, two of them, to choose from
    assert in_cn.returncode == 2 and "work (cn)" in in_cn.stderr and "team" not in in_cn.stderr


def test_bare_switch_offers_a_picker_on_a_terminal(two, server):
    signed_in(two, server, "global", "team", "carol")
    leader, follower = pty.openpty()
    process = subprocess.Popen([SCRIPT, "switch"], stdin=follower, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    seen = b""
    while b"Number or name" not in seen:
        chunk = os.read(leader, 4096)
        assert chunk, seen
        seen += chunk
    assert b"1) personal (cn)  bob" in seen
    assert b"team (global)  carol (active)" in seen
    os.write(leader, b"work\n")
    stdout, _ = process.communicate(timeout=60)
    os.close(leader)
    assert process.returncode == 0 and b"now uses account work (cn) (alice)" in stdout
    assert managed_slot() == account_slot("cn", "work")


def test_login_to_an_account_in_both_regions_asks_which(home, server):
    signed_in(home, server, "cn", "personal", "bob")
    signed_in(home, server, "global", "personal", "bob-g")
    before = {p.name: p.read_bytes() for p in (home / "credentials").iterdir()}
    for face in (("--no-tui",), ()):
        done = run("login", "--no-browser", "--account", "personal", *face)
        assert done.returncode == 2, done.stderr
        assert "Both regions have an account named personal" in done.stderr and "--region" in done.stderr
    assert {p.name: p.read_bytes() for p in (home / "credentials").iterdir()} == before
    assert server.count(DEVICE_PATH) == 0  # no sign-in was started


def test_a_second_account_signed_in_as_the_same_person_is_said(home, server):
    signed_in(home, server, "cn", "work", "alice")
    done = sign_in(server, "personal", "alice")  # the browser was still signed in as alice
    assert "Same person: account personal (cn) is signed in as the same person as account work (cn)" in done.stderr
    assert "assistant-auth login --account personal --region cn --force" in done.stderr
    other = sign_in(server, "team", "carol")
    assert "same person" not in other.stderr


def test_while_you_were_away_names_the_account_that_finished(monkeypatch):
    done = Record("ended", Region.CN, 1_700_000_000.0, outcome="success", identity="alice", account="work")
    assert away_text(done).endswith("signed in as alice · work (cn)")
    plain = Record("ended", Region.GLOBAL, 1_700_000_000.0, outcome="success", identity="bob")
    assert away_text(plain).endswith("signed in as bob · global")
    monkeypatch.setenv("ASSISTANT_LANG", "zh-CN")
    assert "work (cn)" in away_text(done) and "地区" not in away_text(done)
