"""`signin/`: the records of sign-ins that outlive their terminal, trusted only when yours and
private; a waiting one is reported, never offered for removal."""

from __future__ import annotations

import os
import pathlib
import stat

from tui.core.credentials.repairs import (
    Repair,
    Seen,
    link_target,
    remove_leftover,
    remove_odd_entry,
    seen,
)
from tui.core.doctor.local import NO_LINKS, chmod_repair, entries
from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.signin import follow, ondisk
from tui.core.signin.place import ODD, wrong_kind
from tui.core.text.phrase import N_, Phrase


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
    checks += [_waiting(record) for record in ondisk.waiting()]
    finding = Phrase(N_("{path} is private (0700) and holds only what sign-ins make."), path=where)
    return checks or [Check("files.signin", OK, finding, "", {"path": str(where)})]


def _unusable_directory(where: pathlib.Path, found: Seen) -> Check | None:
    """A link, not a directory, or another user's: no record in it is ever followed."""
    if found.is_link or not stat.S_ISDIR(found.mode):
        finding = (
            Phrase(
                N_("{path} is a symbolic link to {target}: sign-ins cannot be followed from another terminal."),
                path=where,
                target=link_target(where),
            )
            if found.is_link
            else Phrase(N_("{path} is not a directory: sign-ins cannot be followed from another terminal."), path=where)
        )
        hint = Phrase(N_("Remove it by hand ({no_links}); signing in makes a new one."), no_links=NO_LINKS)
        return Check("files.signin", FAIL, finding, hint, {"path": str(where)})
    if found.uid != os.geteuid():
        finding = Phrase(
            N_("{path} belongs to uid {uid}, not to you: its records are never followed."), path=where, uid=found.uid
        )
        hint = Phrase(N_("Remove it by hand (it is not yours to change); signing in makes a new one."))
        return Check("files.signin", FAIL, finding, hint, {"path": str(where)})
    return None


def _directory_mode(where: pathlib.Path, found: Seen) -> list[Check]:
    mode = found.permissions
    repair = chmod_repair(found, 0o700)
    if mode & 0o022:
        finding = Phrase(
            N_("{path} has mode {mode}: others can plant records in it, so none is followed."),
            path=where,
            mode=f"{mode:04o}",
        )
        fix = Phrase(N_("chmod 700 {path}."), path=where)
        return [Check("files.signin", FAIL, finding, fix, {"path": str(where)}, repair=repair)]
    if mode != 0o700:
        finding = Phrase(N_("{path} has mode {mode}."), path=where, mode=f"{mode:04o}")
        fix = Phrase(N_("chmod 700 {path}."), path=where)
        return [Check("files.signin", WARN, finding, fix, {"path": str(where)}, repair=repair)]
    return []


def _waiting(record: follow.Record) -> Check:
    """A live sign-in: reported, never removed here (`login --new` abandons it); one nobody polls
    (its process ended) is a warning: an approval saves nothing until a `login` resumes it."""
    region = record.region.value
    name = f"files.signin.{region}"
    if record.polled:
        finding = Phrase(N_("A {region} sign-in is waiting for approval."), region=region)
        return Check(name, OK, finding, "", {"region": region, "state": "pending"})
    finding = Phrase(
        N_(
            "A {region} sign-in waits for approval, but nobody polls it (its process ended): approving it saves nothing."
        ),
        region=region,
    )
    fix = Phrase(N_("`{command}` resumes it with the same code."), command=record.resume_command())
    return Check(name, WARN, finding, fix, {"region": region, "state": "pending", "polled": False})


def _signin_entry(entry: Seen) -> list[Check]:
    path = pathlib.Path(entry.path)
    name = f"files.signin.{path.name}"
    kind = wrong_kind(entry.mode)
    if kind is not None:  # never used by a sign-in (place.py); removed by --fix, a link as itself
        finding = (
            Phrase(N_("{path} is a symbolic link to {target}."), path=path, target=link_target(path))
            if entry.is_link
            else Phrase(ODD, path=path, kind=Phrase(kind))
        )
        return [
            Check(
                name,
                FAIL,
                finding,
                Phrase(N_("Remove it: sign-ins never use it.")),
                {"path": str(path), "kind": kind},
                repair=Repair(
                    Phrase(N_("remove {path} ({kind}), if it still is that"), path=path, kind=Phrase(kind)),
                    lambda: remove_odd_entry(entry),
                ),
            )
        ]
    if entry.uid != os.geteuid():  # planted: never followed, and not ours to chmod
        return [
            Check(
                name,
                FAIL,
                Phrase(
                    N_("{path} belongs to uid {uid}, not to you: a record nobody may follow."), path=path, uid=entry.uid
                ),
                Phrase(N_("Remove it.")),
                {"path": str(path), "owner_uid": entry.uid},
                repair=Repair(
                    Phrase(N_("remove {path} (another user's file), if it still is that file"), path=path),
                    lambda: remove_leftover(
                        entry, lambda info: info.st_uid == entry.uid, Phrase(N_("another user's file"))
                    ),
                ),
            )
        ]
    if entry.permissions != 0o600:
        return [
            Check(
                name,
                FAIL,
                Phrase(
                    N_("{path} has mode {mode}: it may hold a device code."), path=path, mode=f"{entry.permissions:04o}"
                ),
                Phrase(N_("chmod 600 {path}."), path=path),
                {"path": str(path)},
                repair=chmod_repair(entry, 0o600),
            )
        ]
    return []
