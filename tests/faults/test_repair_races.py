"""Repairs never act through a link, nor on a verdict that is no longer true.

Every repair (doctor --fix, the Doctor screen, the inspector's m and x) goes through
`tui.core.credentials.repairs`. These tests swap the file, the link or the lock between the check and the
answer, and assert that nothing outside the config directory changed and no sign-in was lost.
"""

from __future__ import annotations

import json
import os
import pty
import select
import stat
import subprocess
import sys
import time

import pytest

from tests.app.helpers import screen_name, wait_for
from tests.commands import run_command
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.core.credentials.repairs import (
    CHANGED,
    NotDone,
    fix_mode,
    move_aside,
    remove_stale_lock,
    seen,
)
from tui.core.doctor import apply_repair, exit_code, local_checks
from tui.core.slots.permissions import apply_plan, permission_plan

VALID = {"access_token": "AT-official", "refresh_token": "RT-official", "expires_at": 4102444800}


def checks_by_name():
    return {check.name: check for check in local_checks()}


def mode_of(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def shared(tmp_path):
    """A directory outside the config dir that others share: 1777, sticky."""
    directory = tmp_path / "shared"
    directory.mkdir()
    os.chmod(directory, 0o1777)
    return directory


# -- links are never acted through ----------------------------------------------------------


def test_a_linked_credentials_dir_is_never_chmodded(home, shared):
    home.mkdir(parents=True)
    os.chmod(home, 0o700)
    (home / "credentials").symlink_to(shared)
    write_creds(home, VALID)
    check = checks_by_name()["files.credentials_dir"]
    assert check.repair is None and str(shared) in check.finding
    plan, links = permission_plan("assistant-code")
    assert all(change.what.path != str(home / "credentials") for change in plan)
    assert any(str(shared) in line for line in links)
    apply_plan(plan)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777 and shared.stat().st_mode & stat.S_ISVTX


def test_doctor_fix_leaves_a_linked_credentials_dir_alone(home, shared):
    home.mkdir(parents=True)
    os.chmod(home, 0o700)
    (home / "credentials").symlink_to(shared)
    done = run_command(["doctor", "--fix", "--yes", "--offline"], timeout=60)
    assert "Traceback" not in done.stderr
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777


def test_a_slot_file_linked_outside_is_never_chmodded(home, tmp_path):
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps(VALID))
    os.chmod(outside, 0o644)
    (home / "credentials").mkdir(parents=True, mode=0o700)
    os.chmod(home, 0o700)
    (home / "credentials" / "assistant-code.json").symlink_to(outside)
    plan, links = permission_plan("assistant-code")
    assert plan == [] and any(str(outside) in line for line in links)
    check = checks_by_name()["files.slot.assistant-code"]
    assert check.repair is None and str(outside) in check.finding
    link = seen(home / "credentials" / "assistant-code.json")
    with pytest.raises(NotDone, match="symbolic link"):
        fix_mode(link, 0o600)
    assert mode_of(outside) == 0o644


def test_a_path_outside_the_config_dir_is_refused(home, tmp_path):
    home.mkdir(parents=True)
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    os.chmod(outside, 0o644)
    with pytest.raises(NotDone, match="outside"):
        fix_mode(seen(outside), 0o600)
    assert mode_of(outside) == 0o644


# -- the world changes between the check and the answer -------------------------------------


def test_a_checked_file_replaced_by_a_link_keeps_its_target_untouched(home, tmp_path):
    path = write_creds(home, VALID)
    os.chmod(path, 0o644)
    os.chmod(home, 0o700)
    check = checks_by_name()["files.slot.assistant-code"]
    assert check.repair is not None
    target = tmp_path / "target.json"
    target.write_text("{}")
    os.chmod(target, 0o644)
    path.unlink()
    path.symlink_to(target)  # between the check and "y"
    apply_repair(check)
    assert check.repaired is None and CHANGED in check.repair_failed
    assert mode_of(target) == 0o644
    assert exit_code([check]) == 1


def test_a_mode_changed_meanwhile_is_not_changed_again(home):
    path = write_creds(home, VALID)
    os.chmod(path, 0o644)
    os.chmod(home, 0o700)
    check = checks_by_name()["files.slot.assistant-code"]
    os.chmod(path, 0o640)  # someone else changed it meanwhile: the fact reported is not true
    apply_repair(check)
    assert CHANGED in check.repair_failed and mode_of(path) == 0o640


@pytest.mark.parametrize("how", ["atomic", "in_place"])
def test_an_unparsable_file_rewritten_with_a_sign_in_is_kept(home, how):
    path = write_creds(home, "{not json")
    os.chmod(home, 0o700)
    check = checks_by_name()["files.slot.assistant-code"]
    assert check.repair is not None and "rename" in check.repair.change
    if how == "atomic":  # the official client (or another login) wrote a valid sign-in meanwhile
        fresh = path.with_name(".fresh.tmp")
        fresh.write_text(json.dumps(VALID))
        os.chmod(fresh, 0o600)
        os.replace(fresh, path)
    else:
        with open(path, "r+") as handle:
            handle.truncate(0)
            handle.write(json.dumps(VALID))
    apply_repair(check)
    assert check.repaired is None and CHANGED in check.repair_failed
    assert json.loads(path.read_text()) == VALID  # the sign-in is kept
    assert not list(path.parent.glob("*.corrupt-*"))


def test_a_still_unparsable_file_is_moved_aside_under_the_locks(home):
    path = write_creds(home, "{not json")
    os.chmod(home, 0o700)
    check = checks_by_name()["files.slot.assistant-code"]
    apply_repair(check)
    assert check.repaired and not path.exists()
    assert [p.name.split(".corrupt-")[0] for p in path.parent.glob("*.corrupt-*")] == ["assistant-code.json"]
    assert os.path.isfile(home / "credentials" / "assistant-code.lock")  # taken through the slot's locks


def test_a_stale_lock_taken_over_and_renewed_is_kept(home):
    lock = home / "oauth" / "assistant-code.lock"
    lock.mkdir(parents=True)
    old = time.time() - 60
    os.utime(lock, (old, old))
    check = checks_by_name()["files.lock.oauth.assistant-code.lock"]
    assert check.repair is not None
    os.utime(lock)  # another client took it over a second ago and renews it
    apply_repair(check)
    assert check.repaired is None and CHANGED in check.repair_failed and lock.is_dir()


def test_a_stale_lock_replaced_by_another_holder_is_kept(home):
    lock = home / "oauth" / "assistant-code.lock"
    lock.mkdir(parents=True)
    os.utime(lock, (time.time() - 60,) * 2)
    found = seen(lock)
    lock.rename(lock.with_name("old"))  # kept until the new one exists: a new inode for certain
    lock.mkdir()  # a new holder's directory
    lock.with_name("old").rmdir()
    os.utime(lock, (time.time() - 60,) * 2)
    with pytest.raises(NotDone, match="replaced"):
        remove_stale_lock(found)
    assert lock.is_dir()


def test_a_directory_replaced_by_a_link_is_not_chmodded(home, shared):
    (home / "credentials").mkdir(parents=True)
    os.chmod(home / "credentials", 0o755)
    os.chmod(home, 0o700)
    check = checks_by_name()["files.credentials_dir"]
    assert check.repair is not None
    (home / "credentials").rmdir()
    (home / "credentials").symlink_to(shared)
    apply_repair(check)
    assert CHANGED in check.repair_failed
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777


def test_move_aside_refuses_a_link(home, tmp_path):
    outside = tmp_path / "x.json"
    outside.write_text("{not json")
    (home / "credentials").mkdir(parents=True)
    (home / "credentials" / "assistant-code.json").symlink_to(outside)
    with pytest.raises(NotDone, match="symbolic link"):
        move_aside(seen(home / "credentials" / "assistant-code.json"), "assistant-code")
    assert outside.exists() and (home / "credentials" / "assistant-code.json").is_symlink()


# -- the faces: doctor's prompt on a terminal, the inspector's dialogs -----------------------


def _read_until(master: int, needle: bytes, timeout: float = 30) -> bytes:
    seen_bytes = b""
    deadline = time.monotonic() + timeout
    while needle not in seen_bytes:
        left = deadline - time.monotonic()
        assert left > 0, seen_bytes.decode(errors="replace")
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen_bytes += chunk
    return seen_bytes


def test_doctor_prompt_answered_after_the_official_client_signed_in(home):
    """doctor --fix on a terminal asks; meanwhile a valid sign-in replaces the unparsable file;
    "y" then changes nothing, says so, and the exit code is not 0."""
    path = write_creds(home, "{not json")
    os.chmod(home, 0o700)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "doctor", "--fix", "--offline"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    try:
        _read_until(master, b"Repair: rename")
        fresh = path.with_name(".fresh.tmp")
        fresh.write_text(json.dumps(VALID))
        os.chmod(fresh, 0o600)
        os.replace(fresh, path)
        os.write(master, b"y\n")
        out = _read_until(master, b"cannot be used", timeout=30)
        out += _drain(master, proc)
    finally:
        os.close(master)
    assert proc.returncode != 0
    text = out.decode(errors="replace")
    assert CHANGED in text
    assert json.loads(path.read_text()) == VALID


def _drain(master: int, proc: subprocess.Popen) -> bytes:
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                chunk = b""
            if chunk:
                out += chunk
                continue
        if proc.poll() is not None:
            return out


async def test_inspector_move_aside_after_a_sign_in_meanwhile_keeps_it(home):
    path = write_creds(home, "{not json")
    app = AssistantAuthApp(start="inspect")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        await pilot.press("x")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        fresh = path.with_name(".fresh.tmp")
        fresh.write_text(json.dumps(VALID))
        os.replace(fresh, path)
        await pilot.press("y")
        await wait_for(pilot, lambda: "Not done" in str(app.screen.query_one("#inspector-notice").render()))
        assert screen_name(app) == "CredentialsScreen"  # no sign-in started: nothing was moved
    assert json.loads(path.read_text()) == VALID and not list(path.parent.glob("*.corrupt-*"))


async def test_inspector_fix_mode_after_a_swap_to_a_link_changes_nothing_outside(home, tmp_path):
    path = write_creds(home, VALID)
    os.chmod(path, 0o644)
    os.chmod(home, 0o700)
    target = tmp_path / "target.json"
    target.write_text("{}")
    os.chmod(target, 0o644)
    app = AssistantAuthApp(start="inspect")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        await pilot.press("m")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        path.unlink()
        path.symlink_to(target)
        await pilot.press("y")
        await wait_for(pilot, lambda: "Not done" in str(app.screen.query_one("#inspector-notice").render()))
    assert mode_of(target) == 0o644
