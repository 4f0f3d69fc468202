"""Checks of this machine's files, config.toml and stored credentials, with their safe repairs.

Repairs change one thing each and lose nothing: modes, a missing `oauthHost` written back,
an unparsable file moved aside, leftover temp files and old `*.json.lock` files removed, a stale
`oauth/<name>.lock` directory (mtime older than 5 s or in the future) removed. Each goes through
`tui.core.repairs`, which re-checks the same object right before acting and never follows a link.
A `credentials/<name>.lock` flock file is never deleted: that would break mutual exclusion for
whoever holds it.
"""

from __future__ import annotations

import os
import pathlib
import stat
import time

from tui.core import paths
from tui.core.credentials.locks import (
    DirLockState,
    age_text,
    dir_lock_state,
    flock_holder,
    is_stale,
)
from tui.core.credentials.slot import parse_credentials, read_text
from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.errors import AuthError
from tui.core.identity import read_device_id
from tui.core.regions import Region
from tui.core.repairs import (
    Repair,
    Seen,
    fix_mode,
    link_target,
    move_aside,
    older_than,
    remove_leftover,
    remove_stale_lock,
    seen,
    unheld,
)
from tui.core.signin import follow

TEMP_AGE = 60.0  # seconds: a temp file older than this is a killed writer's, not one in flight
NO_LINKS = "doctor changes nothing through a symbolic link"


def _chmod(what: Seen, mode: int) -> Repair:
    return Repair(f"chmod {mode:04o} {what.path} (now {what.permissions:04o})", lambda: fix_mode(what, mode))


def check_dirs() -> list[Check]:
    checks = []
    for name, path in (("files.config_dir", paths.config_dir()), ("files.credentials_dir", paths.credentials_dir())):
        found = seen(path)
        if found is None:
            checks.append(
                Check(name, OK, f"{path} does not exist yet (signing in creates it, 0700).", "", {"path": str(path)})
            )
            continue
        details = {"path": str(path), "mode": f"{found.permissions:04o}", "owner_uid": found.uid}
        if found.is_link:
            target = link_target(path)
            details["points_to"] = target
            try:
                info = os.stat(path)
            except OSError:
                checks.append(
                    Check(
                        name,
                        FAIL,
                        f"{path} is a symbolic link to {target}, which does not exist.",
                        "Remove the link or restore its target.",
                        details,
                    )
                )
                continue
            mode = stat.S_IMODE(info.st_mode)
            details["mode"] = f"{mode:04o}"
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or mode & 0o077:
                checks.append(
                    Check(
                        name,
                        WARN,
                        f"{path} is a symbolic link to {target} (mode {mode:04o}, uid {info.st_uid}).",
                        f"If {target} is yours alone, make it private yourself (chmod 700); {NO_LINKS}.",
                        details,
                    )
                )
            else:
                checks.append(
                    Check(
                        name, OK, f"{path} is a symbolic link to {target}, private ({mode:04o}) and yours.", "", details
                    )
                )
        elif not stat.S_ISDIR(found.mode):
            checks.append(
                Check(
                    name,
                    FAIL,
                    f"{path} is not a directory.",
                    "Move it away; signing in creates the directory.",
                    details,
                )
            )
        elif found.uid != os.getuid():
            checks.append(
                Check(
                    name,
                    FAIL,
                    f"{path} belongs to uid {found.uid}, not to you (uid {os.getuid()}).",
                    f"Give it back to yourself: `chown -R $USER {path}` (doctor does not change owners).",
                    details,
                )
            )
        elif found.permissions & 0o022:  # others can replace config.toml or a credential file
            checks.append(
                Check(
                    name,
                    FAIL,
                    f"{path} has mode {found.permissions:04o}: other users can replace what is inside.",
                    f"Make it private: chmod 700 {path}.",
                    details,
                    repair=_chmod(found, 0o700),
                )
            )
        elif found.permissions & 0o077:
            checks.append(
                Check(
                    name,
                    WARN,
                    f"{path} has mode {found.permissions:04o}: other users can reach what is inside.",
                    f"Make it private: chmod 700 {path}.",
                    details,
                    repair=_chmod(found, 0o700),
                )
            )
        else:
            checks.append(Check(name, OK, f"{path} is private ({found.permissions:04o}) and yours.", "", details))
    return checks


def check_slot_files() -> list[Check]:
    """Each `*.json` of credentials/: a regular file, yours, 0600, that parses. A file with a bad
    mode that also does not parse gets both findings, each with its repair (chmod first)."""
    directory = paths.credentials_dir()
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return []
    checks = []
    for entry in entries:
        if not entry.name.endswith(".json") or entry.name.startswith("."):
            continue
        slot = entry.name[:-5]
        name = f"files.slot.{slot}"
        found = seen(entry)
        if found is None:
            continue
        details = {"path": str(entry)}
        link = ""
        info = os.lstat(entry)
        if found.is_link:
            target = link_target(entry)
            details["points_to"] = target
            try:
                info = os.stat(entry)
            except OSError:
                checks.append(
                    Check(
                        name,
                        FAIL,
                        f"{entry} is a symbolic link to {target}, which does not exist.",
                        "Remove the link or restore its target; then sign in.",
                        details,
                    )
                )
                continue
            link = f" (a symbolic link to {target})"
        mode = stat.S_IMODE(info.st_mode)
        details["mode"] = f"{mode:04o}"
        if not stat.S_ISREG(info.st_mode):
            checks.append(
                Check(name, FAIL, f"{entry}{link} is not a regular file.", "Move it away and sign in again.", details)
            )
            continue
        if info.st_uid != os.getuid():
            checks.append(
                Check(
                    name,
                    FAIL,
                    f"{entry}{link} belongs to uid {info.st_uid}, not to you.",
                    f"`chown $USER {entry}` (doctor does not change owners).",
                    details,
                )
            )
            continue
        problems = 0
        if mode & 0o077:
            readable = "readable by other users" if mode & 0o044 else "open to other users"
            repair = None if link else _chmod(found, 0o600)
            fix = f"chmod 600 {entry}" + (f" (its target: {NO_LINKS})" if link else "")
            checks.append(
                Check(name, FAIL, f"{entry}{link} has mode {mode:04o}: {readable}.", fix, details, repair=repair)
            )
            problems += 1
        try:
            parse_credentials(read_text(entry))
        except (AuthError, OSError, ValueError) as exc:
            repair = (
                None
                if link
                else Repair(
                    f"rename {entry} to {entry.name}.corrupt-<timestamp>, if it still does not parse",
                    lambda what=found, slot=slot: move_aside(what, slot),
                )
            )
            fix = "Move it aside (nothing is deleted) and sign in again." + (f" ({NO_LINKS})" if link else "")
            checks.append(
                Check(
                    f"{name}.content" if problems else name,
                    FAIL,
                    f"{entry} cannot be used: {str(exc)[:160]}.",
                    fix,
                    details,
                    repair=repair,
                )
            )
            problems += 1
        if not problems:
            checks.append(Check(name, OK, f"{entry}{link}: private ({mode:04o}), yours, parses.", "", details))
    return checks


def _entries(directory: pathlib.Path) -> list[Seen]:
    """Each entry of `directory` as `lstat` sees it, sorted; [] when it cannot be listed."""
    try:
        names = sorted(directory.iterdir())
    except OSError:
        return []
    return [found for found in (seen(entry) for entry in names) if found is not None]


def check_leftovers(now: float | None = None) -> list[Check]:
    """Temp files of killed writers, `.corrupt-*` files, old `*.json.lock` files, stale, odd or
    foreign entries in `oauth/`."""
    now = time.time() if now is None else now
    checks = []
    for directory in (paths.config_dir(), paths.credentials_dir()):
        for found in _entries(directory):
            entry = pathlib.Path(found.path)
            age = now - found.mtime
            regular = stat.S_ISREG(found.mode)
            if entry.name.startswith(".") and entry.name.endswith(".tmp") and regular:
                if age > TEMP_AGE:
                    repair = Repair(
                        f"remove the temp file {entry}, if it is still older than a minute",
                        lambda what=found: remove_leftover(what, older_than(TEMP_AGE), "an old temp file"),
                    )
                    checks.append(
                        Check(
                            f"files.temp.{entry.name}",
                            WARN,
                            f"{entry} is a temp file left by a writer that stopped ({age:.0f} s old).",
                            "Remove it.",
                            {"path": str(entry)},
                            repair=repair,
                        )
                    )
            elif ".corrupt-" in entry.name:
                checks.append(
                    Check(
                        f"files.corrupt.{entry.name}",
                        WARN,
                        f"{entry} is an unreadable file moved aside earlier.",
                        "Kept for you to look at; delete it yourself when you no longer need it.",
                        {"path": str(entry)},
                    )
                )
            elif entry.name.endswith(".json.lock") and regular and flock_holder(str(entry)) is None:
                repair = Repair(
                    f"remove the old lock file {entry}, if still no process holds it",
                    lambda what=found: remove_leftover(what, unheld(what.path), "an unheld lock file"),
                )
                checks.append(
                    Check(
                        f"files.lock.{entry.name}",
                        WARN,
                        f"{entry} is an old lock file no program uses any more.",
                        "Remove it.",
                        {"path": str(entry)},
                        repair=repair,
                    )
                )
    for found in _entries(paths.config_dir() / "oauth"):
        entry = pathlib.Path(found.path)
        if entry.name.endswith(".lock"):
            checks.append(_lock_check(found, dir_lock_state(found.path, now)))
        elif not stat.S_ISREG(found.mode):
            checks.append(
                Check(
                    f"files.lock.oauth.{entry.name}",
                    WARN,
                    f"{entry} is not what the lock protocol makes there.",
                    "Look at it and remove it by hand if no program needs it.",
                    {"path": str(entry)},
                )
            )
    return checks


def _lock_check(found: Seen, state: DirLockState) -> Check:
    """One `oauth/<name>.lock`: held, stale (also stamped in the future), or not a lock at all."""
    name = f"files.lock.oauth.{pathlib.Path(found.path).name}"
    details = {"path": found.path, "kind": state.kind}
    if state.age is not None:
        details["age_s"] = round(state.age)
    if state.kind == DirLockState.HELD:
        return Check(name, OK, f"{found.path} is held right now ({age_text(state.age)}).", "", details)
    if state.kind in (DirLockState.STALE, DirLockState.FOREIGN) and is_stale(state.age):
        why = "its holder stopped" if state.age > 0 else "a clock that was ahead, or a copied home"
        return Check(
            name,
            WARN,
            f"{state.describe()}: {why}.",
            "Remove it (the official client would take it over too).",
            details,
            repair=Repair(
                f"remove the stale lock directory {found.path}, if it is still stale then",
                lambda: remove_stale_lock(found),
            ),
        )
    if state.kind == DirLockState.FOREIGN:
        return Check(
            name,
            WARN,
            f"{state.describe()}.",
            "A process of another user holds it; if none should, remove it by hand.",
            details,
        )
    if state.kind == DirLockState.NOT_DIR and stat.S_ISREG(found.mode) and os.path.getsize(found.path) == 0:
        return Check(
            name,
            FAIL,
            f"{state.describe()}: every refresh of the slot fails until it is gone.",
            "Remove it (it is empty).",
            details,
            repair=Repair(
                f"remove the empty file {found.path}, if it is still empty",
                lambda: remove_leftover(found, lambda info: info.st_size == 0, "an empty file"),
            ),
        )
    return Check(
        name,
        FAIL,
        f"{state.describe()}: every refresh of the slot fails until it is gone.",
        f"Look at it and remove it by hand ({NO_LINKS}).",
        details,
    )


def check_signin_records() -> list[Check]:
    """`signin/`: the records of sign-ins that outlive their terminal. Private (0700 / 0600), the
    person's own, never a link: anything else is never followed and is reported as a failure (a
    file of another user is removed, never chmod-ed); a waiting one is reported, never offered for
    removal; nothing of its codes is shown."""
    where = pathlib.Path(follow.directory_path())
    found = seen(where)
    if found is None:
        return []
    if found.is_link or not stat.S_ISDIR(found.mode):
        what = f"a symbolic link to {link_target(where)}" if found.is_link else "not a directory"
        return [
            Check(
                "files.signin",
                FAIL,
                f"{where} is {what}: sign-ins cannot be followed from another terminal.",
                f"Remove it by hand ({NO_LINKS}); signing in makes a new one.",
                {"path": str(where)},
            )
        ]
    if found.uid != os.geteuid():
        return [
            Check(
                "files.signin",
                FAIL,
                f"{where} belongs to uid {found.uid}, not to you: its records are never followed.",
                "Remove it by hand (it is not yours to change); signing in makes a new one.",
                {"path": str(where)},
            )
        ]
    checks = []
    if found.permissions & 0o022:
        checks.append(
            Check(
                "files.signin",
                FAIL,
                f"{where} has mode {found.permissions:04o}: others can plant records in it, so none is followed.",
                f"chmod 700 {where}.",
                {"path": str(where)},
                repair=_chmod(found, 0o700),
            )
        )
    elif found.permissions != 0o700:
        checks.append(
            Check(
                "files.signin",
                WARN,
                f"{where} has mode {found.permissions:04o}.",
                f"chmod 700 {where}.",
                {"path": str(where)},
                repair=_chmod(found, 0o700),
            )
        )
    for entry in _entries(where):
        checks.extend(_signin_entry(entry))
    for region in Region:
        record = follow.read(region)
        if follow.is_pending(record):  # live: reported, never removed here (`login --new` abandons it)
            checks.append(
                Check(
                    f"files.signin.{region.value}",
                    OK,
                    f"A {region.value} sign-in is waiting for approval.",
                    "",
                    {"region": region.value, "state": "pending"},
                )
            )
    if not checks:
        checks.append(
            Check(
                "files.signin",
                OK,
                f"{where} is private (0700) and holds only what sign-ins make.",
                "",
                {"path": str(where)},
            )
        )
    return checks


def _signin_entry(entry: Seen) -> list[Check]:
    path = pathlib.Path(entry.path)
    name = f"files.signin.{path.name}"
    if entry.is_link:
        return [
            Check(
                name,
                FAIL,
                f"{path} is a symbolic link to {link_target(path)}.",
                f"Remove the link by hand ({NO_LINKS}).",
                {"path": str(path)},
            )
        ]
    if not stat.S_ISREG(entry.mode):
        return []
    if entry.uid != os.geteuid():  # planted: never followed, and not ours to chmod
        return [
            Check(
                name,
                FAIL,
                f"{path} belongs to uid {entry.uid}, not to you: a record nobody may follow.",
                "Remove it.",
                {"path": str(path), "owner_uid": entry.uid},
                repair=Repair(
                    f"remove {path} (another user's file), if it still is that file",
                    lambda: remove_leftover(entry, lambda info: info.st_uid == entry.uid, "another user's file"),
                ),
            )
        ]
    if entry.permissions != 0o600:
        return [
            Check(
                name,
                FAIL,
                f"{path} has mode {entry.permissions:04o}: it may hold a device code.",
                f"chmod 600 {path}.",
                {"path": str(path)},
                repair=_chmod(entry, 0o600),
            )
        ]
    return []


def check_device_id() -> Check:
    value, problem = read_device_id()
    if problem:
        return Check(
            "files.device_id",
            WARN,
            problem[0].upper() + problem[1:] + ".",
            f"Remove {paths.device_id_path()}; a new one is made at the next sign-in.",
            {},
        )
    if value is None:
        return Check("files.device_id", OK, "No device id yet (made at the first sign-in).", "", {})
    return Check(
        "files.device_id", OK, "The device id file is one printable line, used as is.", "", {"device_id": value}
    )
