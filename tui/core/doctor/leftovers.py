"""Leftovers: temp files of killed writers, `.corrupt-*` files, old `*.json.lock` files, and
stale, odd or foreign entries in `oauth/`, each with its safe repair (never a live lock)."""

from __future__ import annotations

import os
import pathlib
import stat
import time
from typing import Any

from tui.core.credentials.locks import (
    DirLockState,
    age_text,
    dir_lock_state,
    is_stale,
)
from tui.core.credentials.repairs import (
    Repair,
    Seen,
    older_than,
    remove_leftover,
    remove_stale_lock,
    unheld,
)
from tui.core.doctor.local import NO_LINKS, entries
from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.spec import paths
from tui.core.system.locks import held, holder, program
from tui.core.text.phrase import N_, Phrase
from tui.core.text.untrusted import one_line

REMOVE_IT = Phrase(N_("Remove it."))
EVERY_REFRESH_FAILS = N_("{lock}: every refresh of the slot fails until it is gone.")
TEMP_AGE = 60.0  # seconds: a temp file older than this is a killed writer's, not one in flight


def check_leftovers(now: float | None = None) -> list[Check]:
    """Temp files of killed writers, `.corrupt-*` files, old `*.json.lock` files, stale, odd or
    foreign entries in `oauth/`."""
    now = time.time() if now is None else now
    checks = []
    for directory in (paths.config_dir(), paths.credentials_dir()):
        for found in entries(directory):
            check = _leftover(found, now)
            if check is not None:
                checks.append(check)
    for found in entries(paths.config_dir() / "oauth"):
        entry = pathlib.Path(found.path)
        if entry.name.endswith(".lock"):
            checks.append(_lock_check(found, dir_lock_state(found.path, now)))
        elif not stat.S_ISREG(found.mode):
            finding = Phrase(N_("{path} is not what the lock protocol makes there."), path=entry)
            hint = Phrase(N_("Look at it and remove it by hand if no program needs it."))
            checks.append(Check(f"files.lock.oauth.{entry.name}", WARN, finding, hint, {"path": str(entry)}))
    return checks


def _leftover(found: Seen, now: float) -> Check | None:
    """One entry of the config or credentials directory, when it is something a writer left."""
    entry = pathlib.Path(found.path)
    age = now - found.mtime
    regular = stat.S_ISREG(found.mode)
    details = {"path": str(entry)}
    if entry.name.startswith(".") and entry.name.endswith(".tmp") and regular:
        if age <= TEMP_AGE:
            return None  # perhaps a writer at work right now
        repair = Repair(
            Phrase(N_("remove the temp file {path}, if it is still older than a minute"), path=entry),
            lambda: remove_leftover(found, older_than(TEMP_AGE), Phrase(N_("an old temp file"))),
        )
        finding = Phrase(
            N_("{path} is a temp file left by a writer that stopped ({age} s old)."), path=entry, age=f"{age:.0f}"
        )
        return Check(f"files.temp.{entry.name}", WARN, finding, REMOVE_IT, details, repair=repair)
    if ".corrupt-" in entry.name:
        finding = Phrase(N_("{path} is an unreadable file moved aside earlier."), path=entry)
        hint = Phrase(N_("Kept for you to look at; delete it yourself when you no longer need it."))
        return Check(f"files.corrupt.{entry.name}", WARN, finding, hint, details)
    if entry.name.endswith(".lock") and not entry.name.endswith(".json.lock") and regular and held(str(entry)):
        return _held_flock(entry, details)
    if entry.name.endswith(".json.lock") and regular and not held(str(entry)):
        repair = Repair(
            Phrase(N_("remove the old lock file {path}, if still no process holds it"), path=entry),
            lambda: remove_leftover(found, unheld(found.path), Phrase(N_("an unheld lock file"))),
        )
        finding = Phrase(N_("{path} is an old lock file no program uses any more."), path=entry)
        return Check(f"files.lock.{entry.name}", WARN, finding, REMOVE_IT, details, repair=repair)
    return None


def _held_flock(entry: pathlib.Path, details: dict[str, Any]) -> Check:
    """A slot's `credentials/<name>.lock` held right now: who holds it (pid and program, where the
    system says), and what to do if it never lets go. The file itself is never removed: its holder
    would lose mutual exclusion."""
    pid = holder(str(entry))
    found = program(pid) if pid else None
    shown = one_line(found, 80) if found else None  # a command line is text from outside
    details.update({"pid": pid, "program": shown})
    if pid is None:
        finding = Phrase(N_("{path} is held right now by a process this system does not name."), path=entry)
        fix = Phrase(N_("A refresh or sign-in is running; if it never ends, find it with `fuser {path}`."), path=entry)
    else:
        finding = Phrase(
            N_("{path} is held right now by process {pid} ({program}): refreshes of this slot wait for it."),
            path=entry,
            pid=pid,
            program=shown or "?",
        )
        fix = Phrase(N_("If it never ends, stop that process (`kill {pid}`); never delete the lock file."), pid=pid)
    return Check(f"files.lock.{entry.name}", WARN, finding, fix, details)


def _lock_check(found: Seen, state: DirLockState) -> Check:
    """One `oauth/<name>.lock`: held, stale (also stamped in the future), or not a lock at all."""
    name = f"files.lock.oauth.{pathlib.Path(found.path).name}"
    details: dict[str, Any] = {"path": found.path, "kind": state.kind}
    age = state.age  # set for a held, stale or foreign directory (it has an mtime)
    if age is not None:
        details["age_s"] = round(age)
    if state.kind == DirLockState.HELD and age is not None:
        finding = Phrase(N_("{path} is held right now ({age})."), path=found.path, age=age_text(age))
        return Check(name, OK, finding, "", details)
    if state.kind in (DirLockState.STALE, DirLockState.FOREIGN) and age is not None and is_stale(age):
        why = N_("{lock}: its holder stopped.") if age > 0 else N_("{lock}: a clock that was ahead, or a copied home.")
        return Check(
            name,
            WARN,
            Phrase(why, lock=state.describe()),
            Phrase(N_("Remove it (the official client would take it over too).")),
            details,
            repair=Repair(
                Phrase(N_("remove the stale lock directory {path}, if it is still stale then"), path=found.path),
                lambda: remove_stale_lock(found),
            ),
        )
    if state.kind == DirLockState.FOREIGN:
        return Check(
            name,
            WARN,
            Phrase(N_("{lock}."), lock=state.describe()),
            Phrase(N_("A process of another user holds it; if none should, remove it by hand.")),
            details,
        )
    if state.kind == DirLockState.NOT_DIR and stat.S_ISREG(found.mode) and os.path.getsize(found.path) == 0:
        return Check(
            name,
            FAIL,
            Phrase(EVERY_REFRESH_FAILS, lock=state.describe()),
            Phrase(N_("Remove it (it is empty).")),
            details,
            repair=Repair(
                Phrase(N_("remove the empty file {path}, if it is still empty"), path=found.path),
                lambda: remove_leftover(found, lambda info: info.st_size == 0, Phrase(N_("an empty file"))),
            ),
        )
    return Check(
        name,
        FAIL,
        Phrase(EVERY_REFRESH_FAILS, lock=state.describe()),
        Phrase(N_("Look at it and remove it by hand ({no_links})."), no_links=NO_LINKS),
        details,
    )
