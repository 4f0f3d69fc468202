"""Checks of this machine's files, config.toml and stored credentials, with their safe repairs.

Repairs change one thing each and lose nothing: modes, a missing `oauthHost` written back,
an unparsable file moved aside, leftover temp files and old `*.json.lock` files removed, a stale
`oauth/<name>.lock` directory (mtime older than 5 s, the official client's takeover rule)
removed. A `credentials/<name>.lock` flock file is never deleted: that would break mutual
exclusion for whoever holds it.
"""

from __future__ import annotations

import os
import pathlib
import stat
import time

from tui.core import paths
from tui.core.credentials import move_aside, parse_credentials, read_text
from tui.core.doctor.model import FAIL, OK, WARN, Check, Repair
from tui.core.errors import AuthError
from tui.core.identity import read_device_id
from tui.core.locks import flock_holder

TEMP_AGE = 60.0  # seconds: a temp file older than this is a killed writer's, not one in flight
STALE_DIR_LOCK = 5.0  # seconds: the official client's staleness rule for oauth/<name>.lock


def _chmod(path: pathlib.Path, mode: int) -> Repair:
    def apply() -> str:
        os.chmod(path, mode)
        return f"{path} is now {mode:04o}"

    current = stat.S_IMODE(path.stat().st_mode)
    return Repair(f"chmod {mode:04o} {path} (now {current:04o})", apply)


def _remove(path: pathlib.Path, what: str) -> Repair:
    def apply() -> str:
        path.unlink()
        return f"removed {path}"

    return Repair(f"remove {what} {path}", apply)


def check_dirs() -> list[Check]:
    checks = []
    for name, path in (("files.config_dir", paths.config_dir()), ("files.credentials_dir", paths.credentials_dir())):
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            checks.append(Check(name, OK, f"{path} does not exist yet (signing in creates it, 0700).", "", {"path": str(path)}))
            continue
        mode = stat.S_IMODE(info.st_mode)
        details = {"path": str(path), "mode": f"{mode:04o}", "owner_uid": info.st_uid}
        if stat.S_ISLNK(info.st_mode):
            details["points_to"] = os.readlink(path)
            info = os.stat(path)
            mode = stat.S_IMODE(info.st_mode)
            details["mode"] = f"{mode:04o}"
        if not stat.S_ISDIR(info.st_mode):
            checks.append(Check(name, FAIL, f"{path} is not a directory.", "Move it away; signing in creates the directory.", details))
        elif info.st_uid != os.getuid():
            checks.append(Check(name, FAIL, f"{path} belongs to uid {info.st_uid}, not to you (uid {os.getuid()}).",
                                f"Give it back to yourself: `chown -R $USER {path}` (doctor does not change owners).", details))
        elif mode & 0o077:
            checks.append(Check(name, WARN, f"{path} has mode {mode:04o}: other users can reach what is inside.",
                                f"Make it private: chmod 700 {path}.", details, repair=_chmod(path, 0o700)))
        else:
            checks.append(Check(name, OK, f"{path} is private ({mode:04o}) and yours.", "", details))
    return checks


def check_slot_files() -> list[Check]:
    directory = paths.credentials_dir()
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return []
    checks = []
    for entry in entries:
        if not entry.name.endswith(".json") or entry.name.startswith("."):
            continue
        name = f"files.slot.{entry.name[:-5]}"
        info = os.lstat(entry)
        details = {"path": str(entry)}
        if stat.S_ISLNK(info.st_mode):
            target = os.readlink(entry)
            details["points_to"] = target
            try:
                info = os.stat(entry)
            except OSError:
                checks.append(Check(name, FAIL, f"{entry} is a symbolic link to {target}, which does not exist.",
                                    "Remove the link or restore its target; then sign in.", details))
                continue
            link = f" (a symbolic link to {target})"
        else:
            link = ""
        mode = stat.S_IMODE(info.st_mode)
        details["mode"] = f"{mode:04o}"
        if not stat.S_ISREG(info.st_mode):
            checks.append(Check(name, FAIL, f"{entry}{link} is not a regular file.", "Move it away and sign in again.", details))
            continue
        if info.st_uid != os.getuid():
            checks.append(Check(name, FAIL, f"{entry}{link} belongs to uid {info.st_uid}, not to you.",
                                f"`chown $USER {entry}` (doctor does not change owners).", details))
            continue
        if mode & 0o077:
            readable = "readable by other users" if mode & 0o044 else "open to other users"
            repair = None if link else _chmod(entry, 0o600)
            fix = f"chmod 600 {entry}" + (" (its target: doctor does not change modes through a link)" if link else "")
            checks.append(Check(name, FAIL, f"{entry}{link} has mode {mode:04o}: {readable}.", fix, details, repair=repair))
            continue
        try:
            parse_credentials(read_text(entry))
        except (AuthError, OSError, ValueError) as exc:

            def aside(path=entry) -> str:
                return f"moved to {move_aside(path)}"

            checks.append(Check(name, FAIL, f"{entry} cannot be used: {str(exc)[:160]}.",
                                "Move it aside (nothing is deleted) and sign in again.", details,
                                repair=Repair(f"rename {entry} to {entry.name}.corrupt-<timestamp>", aside)))
            continue
        checks.append(Check(name, OK, f"{entry}{link}: private ({mode:04o}), yours, parses.", "", details))
    return checks


def _entries(directory: pathlib.Path) -> list[tuple[pathlib.Path, os.stat_result]]:
    """(path, lstat) of each entry of `directory`, sorted; [] when it cannot be listed."""
    found = []
    try:
        names = sorted(directory.iterdir())
    except OSError:
        return []
    for entry in names:
        try:
            found.append((entry, os.lstat(entry)))
        except OSError:
            continue
    return found


def check_leftovers(now: float | None = None) -> list[Check]:
    """Temp files of killed writers, `.corrupt-*` files, old `*.json.lock` files, stale or foreign
    entries in `oauth/`."""
    now = time.time() if now is None else now
    checks = []
    for directory in (paths.config_dir(), paths.credentials_dir()):
        for entry, info in _entries(directory):
            age = now - info.st_mtime
            if entry.name.startswith(".") and entry.name.endswith(".tmp") and stat.S_ISREG(info.st_mode):
                if age > TEMP_AGE:
                    checks.append(Check(f"files.temp.{entry.name}", WARN, f"{entry} is a temp file left by a writer that stopped ({age:.0f} s old).",
                                        "Remove it.", {"path": str(entry)}, repair=_remove(entry, "the temp file")))
            elif ".corrupt-" in entry.name:
                checks.append(Check(f"files.corrupt.{entry.name}", WARN, f"{entry} is an unreadable file moved aside earlier.",
                                    "Kept for you to look at; delete it yourself when you no longer need it.", {"path": str(entry)}))
            elif entry.name.endswith(".json.lock") and stat.S_ISREG(info.st_mode):
                holder = flock_holder(str(entry))
                if holder is None:
                    checks.append(Check(f"files.lock.{entry.name}", WARN, f"{entry} is an old lock file no program uses any more.",
                                        "Remove it.", {"path": str(entry)}, repair=_remove(entry, "the old lock file")))
    for entry, info in _entries(paths.config_dir() / "oauth"):
        age = now - info.st_mtime
        if entry.name.endswith(".lock") and stat.S_ISDIR(info.st_mode):
            if age > STALE_DIR_LOCK:

                def rmdir(path=entry) -> str:
                    os.rmdir(path)
                    return f"removed the stale lock {path}"

                checks.append(Check(f"files.lock.oauth.{entry.name}", WARN,
                                    f"{entry} is a lock not renewed for {age:.0f} s: its holder stopped.",
                                    "Remove it (the official client would take it over too).", {"path": str(entry), "age_s": round(age)},
                                    repair=Repair(f"remove the stale lock directory {entry}", rmdir)))
            else:
                checks.append(Check(f"files.lock.oauth.{entry.name}", OK, f"{entry} is held right now (renewed {age:.0f} s ago).",
                                    "", {"path": str(entry)}))
        elif not stat.S_ISREG(info.st_mode) or entry.name.endswith(".lock"):
            checks.append(Check(f"files.lock.oauth.{entry.name}", WARN, f"{entry} is not what the lock protocol makes there.",
                                "Look at it and remove it by hand if no program needs it.", {"path": str(entry)}))
    return checks


def check_device_id() -> Check:
    value, problem = read_device_id()
    if problem:
        return Check("files.device_id", WARN, problem[0].upper() + problem[1:] + ".",
                     f"Remove {paths.device_id_path()}; a new one is made at the next sign-in.", {})
    if value is None:
        return Check("files.device_id", OK, "No device id yet (made at the first sign-in).", "", {})
    return Check("files.device_id", OK, "The device id file is one printable line, used as is.", "", {"device_id": value})
