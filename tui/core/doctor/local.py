"""Checks of this machine's directories, credential files and device id, with their safe repairs
(leftovers of killed writers and locks: `leftovers`; sign-in records: `signin_records`).

Repairs change one thing each and lose nothing: modes, a missing `oauthHost` written back,
an unparsable file moved aside, leftover temp files and old `*.json.lock` files removed, a stale
`oauth/<name>.lock` directory (mtime older than 5 s or in the future) removed. Each goes through
`tui.core.credentials.repairs`, which re-checks the same object right before acting and never follows a link.
A `credentials/<name>.lock` flock file is never deleted: that would break mutual exclusion for
whoever holds it.
"""

from __future__ import annotations

import os
import pathlib
import stat
from typing import Any

from tui.core.credentials.repairs import (
    Repair,
    Seen,
    fix_mode,
    link_target,
    move_aside,
    seen,
)
from tui.core.credentials.slot import parse_credentials, read_text
from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.errors import AuthError
from tui.core.files.access import DANGLING_FIX, give_back_step, home_blocked
from tui.core.files.identity import read_device_id
from tui.core.spec import paths
from tui.core.text.phrase import N_, Phrase

NO_LINKS = Phrase(N_("doctor changes nothing through a symbolic link"))


def chmod_repair(what: Seen, mode: int) -> Repair:
    change = Phrase(
        N_("chmod {mode} {path} (now {now})"), mode=f"{mode:04o}", path=what.path, now=f"{what.permissions:04o}"
    )
    return Repair(change, lambda: fix_mode(what, mode))


def check_dirs() -> list[Check]:
    """The two directories: absent, a link, not a directory, someone else's, open to others."""
    dirs = (("files.config_dir", paths.config_dir()), ("files.credentials_dir", paths.credentials_dir()))
    return [_dir_check(name, path) for name, path in dirs]


def _dir_check(name: str, path: pathlib.Path) -> Check:
    found = seen(path)
    if found is None and not _absent(path):  # a directory above it cannot be entered: not "does not exist yet"
        blocked = home_blocked()
        finding = Phrase(N_("{path} cannot be examined: {why}."), path=path, why=blocked.why if blocked else "?")
        return Check(name, FAIL, finding, blocked.fix if blocked else give_back_step(), {"path": str(path)})
    if found is None:
        finding = Phrase(N_("{path} does not exist yet (signing in creates it, 0700)."), path=path)
        return Check(name, OK, finding, "", {"path": str(path)})
    details = {"path": str(path), "mode": f"{found.permissions:04o}", "owner_uid": found.uid}
    mode = found.permissions
    if found.is_link:
        return _linked_dir_check(name, path, details)
    if not stat.S_ISDIR(found.mode):
        finding = Phrase(N_("{path} is not a directory."), path=path)
        return Check(name, FAIL, finding, Phrase(N_("Move it away; signing in creates the directory.")), details)
    if found.uid != os.getuid():
        finding = Phrase(
            N_("{path} belongs to uid {uid}, not to you (uid {yours})."), path=path, uid=found.uid, yours=os.getuid()
        )
        hint = give_back_step()
        return Check(name, FAIL, finding, hint, details)
    private = Phrase(N_("Make it private: chmod 700 {path}."), path=path)
    if mode & 0o022:  # others can replace config.toml or a credential file
        finding = Phrase(
            N_("{path} has mode {mode}: other users can replace what is inside."), path=path, mode=f"{mode:04o}"
        )
        return Check(name, FAIL, finding, private, details, repair=chmod_repair(found, 0o700))
    if mode & 0o077:
        finding = Phrase(
            N_("{path} has mode {mode}: other users can reach what is inside."), path=path, mode=f"{mode:04o}"
        )
        return Check(name, WARN, finding, private, details, repair=chmod_repair(found, 0o700))
    return Check(
        name, OK, Phrase(N_("{path} is private ({mode}) and yours."), path=path, mode=f"{mode:04o}"), "", details
    )


def _absent(path: pathlib.Path) -> bool:
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def _linked_dir_check(name: str, path: pathlib.Path, details: dict[str, Any]) -> Check:
    """A directory that is a symbolic link: doctor repairs nothing through it, only says so."""
    target = link_target(path)
    details["points_to"] = target
    try:
        info = os.stat(path)
    except OSError:
        finding = Phrase(N_("{path} is a symbolic link to {target}, which does not exist."), path=path, target=target)
        return Check(name, FAIL, finding, Phrase(N_("Remove the link or restore its target.")), details)
    mode = stat.S_IMODE(info.st_mode)
    details["mode"] = f"{mode:04o}"
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or mode & 0o077:
        finding = Phrase(
            N_("{path} is a symbolic link to {target} (mode {mode}, uid {uid})."),
            path=path,
            target=target,
            mode=f"{mode:04o}",
            uid=info.st_uid,
        )
        hint = Phrase(
            N_("If {target} is yours alone, make it private yourself (chmod 700); {no_links}."),
            target=target,
            no_links=NO_LINKS,
        )
        return Check(name, WARN, finding, hint, details)
    finding = Phrase(
        N_("{path} is a symbolic link to {target}, private ({mode}) and yours."),
        path=path,
        target=target,
        mode=f"{mode:04o}",
    )
    return Check(name, OK, finding, "", details)


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
    link = False
    shown: str = Phrase("{path}", path=entry)  # the file, and where it points when it is a link
    info = os.lstat(entry)
    if found.is_link:
        target = link_target(entry)
        details["points_to"] = target
        try:
            info = os.stat(entry)
        except OSError:
            finding = Phrase(
                N_("{path} is a symbolic link to {target}, which does not exist."), path=entry, target=target
            )
            hint = Phrase(DANGLING_FIX, target=target, path=entry)  # the words every view says it in
            return [Check(name, FAIL, finding, hint, details)]
        link = True
        shown = Phrase(N_("{path} (a symbolic link to {target})"), path=entry, target=target)
    mode = stat.S_IMODE(info.st_mode)
    details["mode"] = f"{mode:04o}"
    if not stat.S_ISREG(info.st_mode):
        finding = Phrase(N_("{file} is not a regular file."), file=shown)
        return [Check(name, FAIL, finding, Phrase(N_("Move it away and sign in again.")), details)]
    if info.st_uid != os.getuid():
        finding = Phrase(N_("{file} belongs to uid {uid}, not to you."), file=shown, uid=info.st_uid)
        return [Check(name, FAIL, finding, give_back_step(), details)]
    checks = []
    if mode & 0o077:
        readable = (
            N_("{file} has mode {mode}: readable by other users.")
            if mode & 0o044
            else N_("{file} has mode {mode}: open to other users.")
        )
        repair = None if link else chmod_repair(found, 0o600)
        fix = (
            Phrase(N_("chmod 600 {path} (its target: {no_links})"), path=entry, no_links=NO_LINKS)
            if link
            else Phrase(N_("chmod 600 {path}"), path=entry)
        )
        finding = Phrase(readable, file=shown, mode=f"{mode:04o}")
        checks.append(Check(name, FAIL, finding, fix, details, repair=repair))
    unusable = _content_check(f"{name}.content" if checks else name, entry, found, slot, link, details)
    if unusable is not None:
        checks.append(unusable)
    return checks or [
        Check(
            name,
            OK,
            Phrase(N_("{file}: private ({mode}), yours, parses."), file=shown, mode=f"{mode:04o}"),
            "",
            details,
        )
    ]


def _content_check(
    name: str, entry: pathlib.Path, found: Seen, slot: str, link: bool, details: dict[str, Any]
) -> Check | None:
    """A slot file that does not parse: moved aside (never through a link), never deleted."""
    try:
        parse_credentials(read_text(entry))
    except (AuthError, OSError, ValueError) as exc:
        change = Phrase(
            N_("rename {path} to {name}.corrupt-<timestamp>, if it still does not parse"), path=entry, name=entry.name
        )
        repair = None if link else Repair(change, lambda: move_aside(found, slot))
        fix = (
            Phrase(N_("Move it aside (nothing is deleted) and sign in again. ({no_links})"), no_links=NO_LINKS)
            if link
            else Phrase(N_("Move it aside (nothing is deleted) and sign in again."))
        )
        finding = Phrase(N_("{path} cannot be used: {problem}."), path=entry, problem=str(exc)[:160])
        return Check(name, FAIL, finding, fix, details, repair=repair)
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
        blocked = home_blocked()  # a directory of another owner: removing the file is not the fix
        return Check(
            "files.device_id",
            WARN,
            Phrase(N_("{problem}."), problem=problem),
            blocked.fix
            if blocked is not None
            else Phrase(N_("Remove {path}; a new one is made at the next sign-in."), path=paths.device_id_path()),
            {},
        )
    if value is None:
        return Check("files.device_id", OK, Phrase(N_("No device id yet (made at the first sign-in).")), "", {})
    return Check(
        "files.device_id",
        OK,
        Phrase(N_("The device id file is one printable line, used as is.")),
        "",
        {"device_id": value},
    )
