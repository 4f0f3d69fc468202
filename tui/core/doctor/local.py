"""Checks of this machine's directories, credential files and device id, with their safe repairs
(leftovers of killed writers and locks: `leftovers`; sign-in records: `signin_records`).

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
from typing import Any

from tui.core import paths
from tui.core.credentials.slot import parse_credentials, read_text
from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.errors import AuthError
from tui.core.identity import read_device_id
from tui.core.repairs import (
    Repair,
    Seen,
    fix_mode,
    link_target,
    move_aside,
    seen,
)

NO_LINKS = "doctor changes nothing through a symbolic link"


def chmod_repair(what: Seen, mode: int) -> Repair:
    return Repair(f"chmod {mode:04o} {what.path} (now {what.permissions:04o})", lambda: fix_mode(what, mode))


def check_dirs() -> list[Check]:
    """The two directories: absent, a link, not a directory, someone else's, open to others."""
    dirs = (("files.config_dir", paths.config_dir()), ("files.credentials_dir", paths.credentials_dir()))
    return [_dir_check(name, path) for name, path in dirs]


def _dir_check(name: str, path: pathlib.Path) -> Check:
    found = seen(path)
    if found is None:
        return Check(name, OK, f"{path} does not exist yet (signing in creates it, 0700).", "", {"path": str(path)})
    details = {"path": str(path), "mode": f"{found.permissions:04o}", "owner_uid": found.uid}
    mode = found.permissions
    if found.is_link:
        return _linked_dir_check(name, path, details)
    if not stat.S_ISDIR(found.mode):
        return Check(
            name, FAIL, f"{path} is not a directory.", "Move it away; signing in creates the directory.", details
        )
    if found.uid != os.getuid():
        finding = f"{path} belongs to uid {found.uid}, not to you (uid {os.getuid()})."
        hint = f"Give it back to yourself: `chown -R $USER {path}` (doctor does not change owners)."
        return Check(name, FAIL, finding, hint, details)
    private = f"Make it private: chmod 700 {path}."
    if mode & 0o022:  # others can replace config.toml or a credential file
        finding = f"{path} has mode {mode:04o}: other users can replace what is inside."
        return Check(name, FAIL, finding, private, details, repair=chmod_repair(found, 0o700))
    if mode & 0o077:
        finding = f"{path} has mode {mode:04o}: other users can reach what is inside."
        return Check(name, WARN, finding, private, details, repair=chmod_repair(found, 0o700))
    return Check(name, OK, f"{path} is private ({mode:04o}) and yours.", "", details)


def _linked_dir_check(name: str, path: pathlib.Path, details: dict[str, Any]) -> Check:
    """A directory that is a symbolic link: doctor repairs nothing through it, only says so."""
    target = link_target(path)
    details["points_to"] = target
    try:
        info = os.stat(path)
    except OSError:
        finding = f"{path} is a symbolic link to {target}, which does not exist."
        return Check(name, FAIL, finding, "Remove the link or restore its target.", details)
    mode = stat.S_IMODE(info.st_mode)
    details["mode"] = f"{mode:04o}"
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or mode & 0o077:
        finding = f"{path} is a symbolic link to {target} (mode {mode:04o}, uid {info.st_uid})."
        hint = f"If {target} is yours alone, make it private yourself (chmod 700); {NO_LINKS}."
        return Check(name, WARN, finding, hint, details)
    return Check(name, OK, f"{path} is a symbolic link to {target}, private ({mode:04o}) and yours.", "", details)


def check_slot_files() -> list[Check]:
    """Each `*.json` of credentials/: a regular file, yours, 0600, that parses. A file with a bad
    mode that also does not parse gets both findings, each with its repair (chmod first)."""
    directory = paths.credentials_dir()
    try:
        files = sorted(directory.iterdir())
    except OSError:
        return []
    checks = []
    for entry in files:
        if entry.name.endswith(".json") and not entry.name.startswith("."):
            checks += _slot_file_checks(entry)
    return checks


def _slot_file_checks(entry: pathlib.Path) -> list[Check]:
    slot = entry.name[:-5]
    name = f"files.slot.{slot}"
    found = seen(entry)
    if found is None:
        return []
    details: dict[str, Any] = {"path": str(entry)}
    link = ""
    info = os.lstat(entry)
    if found.is_link:
        target = link_target(entry)
        details["points_to"] = target
        try:
            info = os.stat(entry)
        except OSError:
            finding = f"{entry} is a symbolic link to {target}, which does not exist."
            return [Check(name, FAIL, finding, "Remove the link or restore its target; then sign in.", details)]
        link = f" (a symbolic link to {target})"
    mode = stat.S_IMODE(info.st_mode)
    details["mode"] = f"{mode:04o}"
    if not stat.S_ISREG(info.st_mode):
        return [Check(name, FAIL, f"{entry}{link} is not a regular file.", "Move it away and sign in again.", details)]
    if info.st_uid != os.getuid():
        finding = f"{entry}{link} belongs to uid {info.st_uid}, not to you."
        return [Check(name, FAIL, finding, f"`chown $USER {entry}` (doctor does not change owners).", details)]
    checks = []
    if mode & 0o077:
        readable = "readable by other users" if mode & 0o044 else "open to other users"
        repair = None if link else chmod_repair(found, 0o600)
        fix = f"chmod 600 {entry}" + (f" (its target: {NO_LINKS})" if link else "")
        checks.append(Check(name, FAIL, f"{entry}{link} has mode {mode:04o}: {readable}.", fix, details, repair=repair))
    unusable = _content_check(f"{name}.content" if checks else name, entry, found, slot, link, details)
    if unusable is not None:
        checks.append(unusable)
    return checks or [Check(name, OK, f"{entry}{link}: private ({mode:04o}), yours, parses.", "", details)]


def _content_check(
    name: str, entry: pathlib.Path, found: Seen, slot: str, link: str, details: dict[str, Any]
) -> Check | None:
    """A slot file that does not parse: moved aside (never through a link), never deleted."""
    try:
        parse_credentials(read_text(entry))
    except (AuthError, OSError, ValueError) as exc:
        change = f"rename {entry} to {entry.name}.corrupt-<timestamp>, if it still does not parse"
        repair = None if link else Repair(change, lambda: move_aside(found, slot))
        fix = "Move it aside (nothing is deleted) and sign in again." + (f" ({NO_LINKS})" if link else "")
        return Check(name, FAIL, f"{entry} cannot be used: {str(exc)[:160]}.", fix, details, repair=repair)
    return None


def entries(directory: pathlib.Path) -> list[Seen]:
    """Each entry of `directory` as `lstat` sees it, sorted; [] when it cannot be listed."""
    try:
        names = sorted(directory.iterdir())
    except OSError:
        return []
    return [found for found in (seen(entry) for entry in names) if found is not None]


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
