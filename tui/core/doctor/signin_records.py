"""`signin/`: the records of sign-ins that outlive their terminal, trusted only when yours and
private; a waiting one is reported, never offered for removal."""

from __future__ import annotations

import os
import pathlib
import stat

from tui.core.doctor.local import NO_LINKS, chmod_repair, entries
from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.regions import Region
from tui.core.repairs import (
    Repair,
    Seen,
    link_target,
    remove_leftover,
    seen,
)
from tui.core.signin import follow


def check_signin_records() -> list[Check]:
    """`signin/`: the records of sign-ins that outlive their terminal. Private (0700 / 0600), the
    person's own, never a link: anything else is never followed and is reported as a failure (a
    file of another user is removed, never chmod-ed); a waiting one is reported, never offered for
    removal; nothing of its codes is shown."""
    where = pathlib.Path(follow.directory_path())
    found = seen(where)
    if found is None:
        return []
    unusable = _unusable_directory(where, found)
    if unusable is not None:
        return [unusable]
    checks = _directory_mode(where, found)
    for entry in entries(where):
        checks.extend(_signin_entry(entry))
    checks += [_waiting(region) for region in Region if follow.is_pending(follow.read(region))]
    finding = f"{where} is private (0700) and holds only what sign-ins make."
    return checks or [Check("files.signin", OK, finding, "", {"path": str(where)})]


def _unusable_directory(where: pathlib.Path, found: Seen) -> Check | None:
    """A link, not a directory, or another user's: no record in it is ever followed."""
    if found.is_link or not stat.S_ISDIR(found.mode):
        what = f"a symbolic link to {link_target(where)}" if found.is_link else "not a directory"
        finding = f"{where} is {what}: sign-ins cannot be followed from another terminal."
        hint = f"Remove it by hand ({NO_LINKS}); signing in makes a new one."
        return Check("files.signin", FAIL, finding, hint, {"path": str(where)})
    if found.uid != os.geteuid():
        finding = f"{where} belongs to uid {found.uid}, not to you: its records are never followed."
        hint = "Remove it by hand (it is not yours to change); signing in makes a new one."
        return Check("files.signin", FAIL, finding, hint, {"path": str(where)})
    return None


def _directory_mode(where: pathlib.Path, found: Seen) -> list[Check]:
    mode = found.permissions
    repair = chmod_repair(found, 0o700)
    if mode & 0o022:
        finding = f"{where} has mode {mode:04o}: others can plant records in it, so none is followed."
        return [Check("files.signin", FAIL, finding, f"chmod 700 {where}.", {"path": str(where)}, repair=repair)]
    if mode != 0o700:
        finding = f"{where} has mode {mode:04o}."
        return [Check("files.signin", WARN, finding, f"chmod 700 {where}.", {"path": str(where)}, repair=repair)]
    return []


def _waiting(region: Region) -> Check:
    """A live sign-in: reported, never removed here (`login --new` abandons it)."""
    finding = f"A {region.value} sign-in is waiting for approval."
    return Check(f"files.signin.{region.value}", OK, finding, "", {"region": region.value, "state": "pending"})


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
                repair=chmod_repair(entry, 0o600),
            )
        ]
    return []
