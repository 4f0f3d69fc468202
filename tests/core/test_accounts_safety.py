"""Accounts are safe beside the official client (#44):

- a `switch` while the official client (a second process following its lock protocol) refreshes
  the active account loses nothing: the rotated token stays in that account's file;
- two `switch` commands at once leave a well-formed config.toml naming one of the two accounts;
- refreshing one account never opens, reads or writes another account's file (an inotify watcher
  on every file of the home);
- account names: any text either is a valid name whose slot the spec's rule resolves back to it,
  or is refused (hypothesis).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import pathlib
import struct
import subprocess
import sys
import threading

import pytest
from hypothesis import given, strategies as st

from tests.cli.test_cli import run
from tests.conftest import read_json, write_creds
from tests.core.test_cotenancy import OFFICIAL, finish
from tests.lock_holder import holding
from tests.spawned import spawn_command
from tests.toml import tomllib
from tests.waiting import PATIENCE, until
from tui.core.config.provider import provision_managed_provider
from tui.core.slots.choice import managed_slot
from tui.core.spec.keys import (
    account_key,
    account_of_slot,
    account_slot,
    resolve_storage_name,
    valid_account_name,
)
from tui.core.spec.regions import endpoints
from tui.demo.server import TOKEN_PATH

WORK, PERSONAL = account_slot("cn", "work"), account_slot("cn", "personal")


def two_accounts(home, server, work_expired: bool = False) -> None:
    write_creds(home, {**server.issue_tokens(subject="alice"), "expires_at": 1 if work_expired else 4102444800}, WORK)
    write_creds(home, {**server.issue_tokens(subject="bob"), "expires_at": 4102444800}, PERSONAL)
    provision_managed_provider(account_key("cn", "work"), "cn")


def official_refresh(home, slot: str) -> subprocess.Popen:
    """The official client's refresh of `slot` under its directory lock, in a process of its own."""
    command = [sys.executable, str(OFFICIAL), "refresh", "--protocol", "dir", "--home", str(home), "--slot", slot]
    command += ["--token-url", endpoints("cn").oauth_host + TOKEN_PATH]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_switch_while_the_official_client_refreshes_the_active_account_loses_nothing(home, server):
    two_accounts(home, server, work_expired=True)
    server.refresh_gate = threading.Event()  # its answer waits until the switch is done
    proc = official_refresh(home, WORK)
    try:
        until(lambda: server.count(TOKEN_PATH, "refresh_token") == 1)  # in flight: the server has rotated
        switched = run("switch", "personal")
        assert switched.returncode == 0, switched.stderr
        assert managed_slot() == PERSONAL
    finally:
        server.refresh_gate.set()
    theirs = finish(proc)
    work = read_json(home / "credentials" / f"{WORK}.json")
    access, refresh = server.issued[-1]
    assert work["refresh_token"] == refresh and work["access_token"] == access, theirs  # the rotation is in work's file
    assert read_json(home / "credentials" / f"{PERSONAL}.json")["refresh_token"] != refresh
    assert not server.revoked_families
    assert run("switch", "work").returncode == 0  # and work is usable as it was left: no refresh needed
    assert run("token").stdout.strip() == access
    assert server.count(TOKEN_PATH, "refresh_token") == 1


def test_two_switches_at_once_leave_one_well_formed_config(home, server):
    two_accounts(home, server)
    text = (home / "config.toml").read_text()
    (home / "config.toml").write_text("# kept\n" + text + '\n[providers.other]\ntype = "x"\n')
    for _round in range(6):
        first = spawn_command(["switch", "work"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        second = spawn_command(["switch", "personal"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert first.wait(timeout=PATIENCE) == 0 and second.wait(timeout=PATIENCE) == 0
        raw = (home / "config.toml").read_text()
        parsed = tomllib.loads(raw)  # well-formed
        assert raw.startswith("# kept\n") and parsed["providers"]["other"] == {"type": "x"}
        key = parsed["providers"]["managed:assistant-code"]["oauth"]["key"]
        assert key in (f"oauth/{WORK}", f"oauth/{PERSONAL}")
        assert raw.count('[providers."managed:assistant-code"]') == 1
    assert [p.name for p in home.iterdir() if ".tmp" in p.name] == []


def test_switch_racing_a_sign_in_to_the_same_account_leaves_both_whole(home, server):
    """`switch` away from and back to `work` while `login --account work` saves a new sign-in of it:
    whichever writes config.toml last wins, and nothing else is lost (the sign-in's tokens, the
    other account's file, the rest of config.toml)."""
    two_accounts(home, server)
    text = (home / "config.toml").read_text()
    (home / "config.toml").write_text("# kept\n" + text + '\n[providers.other]\ntype = "x"\n')
    personal = read_json(home / "credentials" / f"{PERSONAL}.json")
    server.auto_approve = 0
    for _round in range(2):
        login = spawn_command(
            ["login", "--no-tui", "--no-browser", "--account", "work", "--force"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        switches = [
            spawn_command(["switch", name], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for name in ("personal", "work", "personal")
        ]
        assert login.wait(timeout=PATIENCE) == 0, login.stderr.read() if login.stderr else ""
        assert all(switch.wait(timeout=PATIENCE) == 0 for switch in switches)
        raw = (home / "config.toml").read_text()
        parsed = tomllib.loads(raw)  # well-formed
        assert raw.startswith("# kept\n") and parsed["providers"]["other"] == {"type": "x"}
        assert raw.count('[providers."managed:assistant-code"]') == 1
        assert parsed["providers"]["managed:assistant-code"]["oauth"]["key"] in (f"oauth/{WORK}", f"oauth/{PERSONAL}")
        saved = read_json(home / "credentials" / f"{WORK}.json")
        assert saved["access_token"] == server.issued[-1][0] and saved["refresh_token"]  # the new sign-in, whole
        assert read_json(home / "credentials" / f"{PERSONAL}.json") == personal
    assert [p.name for p in home.iterdir() if ".tmp" in p.name] == []


# -- a watcher on every file of the home -----------------------------------------------------------

IN_ACCESS, IN_MODIFY, IN_OPEN, IN_CREATE, IN_MOVED_TO, IN_CLOSE_WRITE = 0x1, 0x2, 0x20, 0x100, 0x80, 0x8
EVENT = struct.Struct("iIII")


class Watcher:
    """inotify on the home, its credentials directory and every file in them: which names were
    opened, read or written."""

    def __init__(self, *directories: pathlib.Path) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = libc.inotify_init1(os.O_NONBLOCK)
        assert self.fd >= 0
        mask = IN_ACCESS | IN_MODIFY | IN_OPEN | IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE
        self.names: dict[int, pathlib.Path] = {}
        for directory in directories:
            for path in [directory, *directory.iterdir()]:
                wd = libc.inotify_add_watch(self.fd, str(path).encode(), mask)
                assert wd >= 0, path
                self.names[wd] = path

    def touched(self) -> set[str]:
        found: set[str] = set()
        try:
            data = os.read(self.fd, 1 << 20)
        except BlockingIOError:
            return found
        offset = 0
        while offset < len(data):
            wd, _mask, _cookie, size = EVENT.unpack_from(data, offset)
            name = data[offset + EVENT.size : offset + EVENT.size + size].rstrip(b"\0").decode()
            where = self.names.get(wd)
            found.add(str(where / name) if name and where else str(where))
            offset += EVENT.size + size
        return found

    def close(self) -> None:
        os.close(self.fd)


@pytest.mark.skipif(not hasattr(os, "O_NONBLOCK") or ctypes.util.find_library("c") is None, reason="Linux inotify")
def test_refreshing_one_account_never_touches_another_accounts_file(home, server):
    two_accounts(home, server)
    other = home / "credentials" / f"{PERSONAL}.json"
    watcher = Watcher(home, home / "credentials")
    try:
        done = run("refresh", "--account", "work")
        assert done.returncode == 0, done.stderr
        seen = watcher.touched()
    finally:
        watcher.close()
    assert str(home / "credentials" / f"{WORK}.json") in seen  # the watcher sees what refresh does
    assert not [name for name in seen if PERSONAL in name], seen
    assert str(other) not in seen


# -- names -------------------------------------------------------------------------------------


@given(st.text(max_size=40))
def test_any_text_is_a_name_whose_slot_resolves_back_to_it_or_is_refused(text):
    if not valid_account_name(text):
        with pytest.raises(Exception):  # noqa: B017, PT011 - AuthError: refused before any path is made
            account_slot("cn", text)
        return
    for region in ("cn", "global"):
        slot = account_slot(region, text)
        assert resolve_storage_name(account_key(region, text)) == slot  # the official client's rule, both ways
        assert "/" not in slot and not slot.startswith(".") and len(slot) <= 128
        assert account_of_slot(slot) == (region, text) or text == "default"


def test_a_stopped_writer_holding_the_config_lock_is_said_in_one_line_and_nothing_is_written(home, server, monkeypatch):
    """A `switch` stopped (SIGSTOP) in the middle of its edit holds the one lock of our writers:
    another waits its bound, then says so; config.toml is left as it was."""
    from tui.core.config import guard
    from tui.core.errors import AuthError

    two_accounts(home, server)
    before = (home / "config.toml").read_bytes()
    with holding(home) as holder:  # config.toml's lock, held by another command
        monkeypatch.setattr(guard, "WAIT", 0.3)
        with pytest.raises(AuthError) as refused:
            provision_managed_provider(account_key("cn", "personal"), "cn")
        assert refused.value.message.startswith("Gave up after") and "editing" in refused.value.message
        assert "\n" not in refused.value.message
        holder.release()
        holder.process.wait(timeout=PATIENCE)
    assert (home / "config.toml").read_bytes() == before
    provision_managed_provider(account_key("cn", "personal"), "cn")  # released: the edit goes through
    assert managed_slot() == PERSONAL
