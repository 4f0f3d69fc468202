"""Accounts attacked (#44) as every wave's mechanisms were: the wrong kind of file at an account's
name, a wrong-typed field in a sign-in's record, a second terminal signing in to another account
of the same region while one waits, a follower saving where the attempt it joined was started
for, a narrow output encoding. Real processes against the local authorization server."""

from __future__ import annotations

import json
import os

import pytest

from tests.cli.test_cli import run
from tests.cli.test_login_join import Login
from tests.commands import run_command
from tests.conftest import write_creds
from tests.waiting import until
from tui.core.config.provider import provision_managed_provider
from tui.core.signin.record import Record
from tui.core.slots.choice import managed_slot
from tui.core.spec.keys import account_key, account_slot
from tui.core.spec.regions import Region
from tui.demo.server import DEVICE_PATH

WORK = account_slot("cn", "work")


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_the_wrong_kind_of_file_at_an_accounts_name_is_reported_never_followed(home, server, tmp_path, kind):
    write_creds(home, {**server.issue_tokens(subject="bob"), "expires_at": 4102444800}, account_slot("cn", "home"))
    provision_managed_provider(account_key("cn", "home"), "cn")
    path = home / "credentials" / f"{WORK}.json"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    switched = run("switch", "work", timeout=30)
    assert switched.returncode == 1 and "Cannot switch to work (cn)" in switched.stderr, switched.stderr
    assert managed_slot() == account_slot("cn", "home")  # unchanged
    token = run("token", "--account", "work", timeout=30)
    assert token.returncode != 0 and "Traceback" not in token.stderr and token.stdout == ""
    status = run("status", "--json", timeout=30)
    assert status.returncode == 0, status.stderr  # the active account is fine
    listed = {a["name"]: a for a in json.loads(status.stdout)["accounts"]}
    assert listed["work"]["usable"] is False and listed["home"]["active"] is True
    assert path.exists()  # reported, never removed or replaced


def test_an_account_whose_file_is_a_link_is_used_as_every_slot_is_and_stays_a_link(home, server, tmp_path):
    """Links to regular files are followed for every slot (dotfile managers use them), and a
    write goes to the link's target, never over the link (docs/security.md)."""
    target = tmp_path / "dotfiles" / "work.json"
    target.parent.mkdir()
    target.write_text(json.dumps({**server.issue_tokens(subject="alice"), "expires_at": 1}))
    path = home / "credentials" / f"{WORK}.json"
    path.parent.mkdir(parents=True, mode=0o700)
    path.symlink_to(target)
    assert run("switch", "work").returncode == 0
    assert run("refresh").returncode == 0  # the expired token refreshed through the link
    assert path.is_symlink() and json.loads(target.read_text())["refresh_token"] == server.issued[-1][1]


@pytest.mark.parametrize("value", [5, "", "../x", "default", "Work", None])
def test_a_records_account_is_read_through_the_names_rule(value):
    data = {"state": "requesting", "region": "cn", "started_at": 1_800_000_000.0, "attempt": "a"}
    if value is not None:
        data["account"] = value
    record = Record.parse(data, Region.CN)
    assert (record is not None) == (value is None)
    named = Record.parse({**data, "account": "work"}, Region.CN)
    assert named is not None and named.account == "work" and named.to_json()["account"] == "work"


def test_another_account_of_a_region_waits_its_turn_and_a_follower_saves_where_it_was_started(home, server, tmp_path):
    server.subject = "alice"
    first = Login(tmp_path, 1, "--no-browser", "--account", "work")
    try:
        until(lambda: "Code:" in first.said)
        assert "Account: work" in first.said
        other = run("login", "--no-tui", "--no-browser", "--account", "personal")
        assert other.returncode == 2
        assert "a sign-in to account work (cn)" in other.stderr and "--new" in other.stderr
        plain = run("login", "--no-tui", "--no-browser")  # the region's own: another account too
        assert plain.returncode == 2 and "account work (cn)" in plain.stderr
        follower = Login(tmp_path, 2, "--no-browser", "--account", "work")
        until(lambda: "Code:" in follower.said)
        server.approve(server.grants()[-1].user_code)
        assert first.end() == 0 and follower.end() == 0, (first.said, follower.said)
    finally:
        first.end(timeout=5)
    assert server.count(DEVICE_PATH) == 1
    assert sorted(p.name for p in (home / "credentials").glob("*.json")) == [f"{WORK}.json"]
    assert managed_slot() == WORK


def test_status_and_switch_under_a_narrow_encoding(home, server):
    write_creds(home, {**server.issue_tokens(subject="alice"), "expires_at": 4102444800}, WORK)
    write_creds(home, {**server.issue_tokens(subject="bob"), "expires_at": 4102444800}, account_slot("cn", "x"))
    provision_managed_provider(account_key("cn", "x"), "cn")
    for lang in ("en", "zh-CN"):
        for args in (("status",), ("switch", "work"), ("switch", "nobody"), ("switch", "--", "../x")):
            env = {**os.environ, "PYTHONIOENCODING": "ascii", "ASSISTANT_LANG": lang}
            done = run_command(args, env=env, timeout=60)
            assert "Traceback" not in done.stderr and done.returncode in (0, 1, 2), (args, done.stderr)
            (done.stdout + done.stderr).encode("ascii")  # only bytes the stream can carry
