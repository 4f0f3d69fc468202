"""Whether this program, as the person running it, can read and write what a sign-in writes: the
config directory, `credentials/`, `signin/`, the slot's file (through a link: its target's
directory) and config.toml. Asked before a sign-in requests a code (an approval consumes the
device code: tokens that cannot be stored would be lost), and by `status`, Home and doctor, which
show the same answer as a warning.

A home the person cannot use is a state like any other: named with its owner, with the one
command that works (`sudo chown -R "$USER" <config dir>`), never a traceback.
"""

from __future__ import annotations

import os
import pathlib
import stat
from dataclasses import dataclass

from tui.core.errors import AuthError, Problem
from tui.core.files.owner import give_back, not_mine, whose
from tui.core.spec import paths
from tui.core.text.phrase import N_, Phrase

NOT_YOURS = N_("{path} belongs to {owner}: you cannot write there (a first sign-in run with sudo?)")
NO_WRITE = N_("{path} cannot be written: {reason}")
NOT_A_DIRECTORY = N_("{path} is not a directory")
NOT_A_FILE = N_("{path} is {kind}, not a file")
GONE_TARGET = N_("{path} is a symbolic link to {target}, whose directory does not exist")
GIVE_BACK = N_("Give your files back to yourself: `{command}`.")
DANGLING_FIX = N_("Restore {target} (your dotfiles), or replace the link with a file: `rm {path}`.")
MOVE_AWAY = N_("Move {path} away; a sign-in then writes a file there.")
CHECK_IT = N_("Check {path} (its mode, its file system), then try again.")


@dataclass(frozen=True)
class Blocked:
    """Why a sign-in's tokens could not be stored, and what to do first (each a `Phrase`)."""

    path: pathlib.Path
    why: str
    fix: str


def refusal(blocked: Blocked) -> AuthError:
    """The sign-in's refusal, before any code is requested: the spec has no words for it."""
    return AuthError(
        f"A sign-in here could not be saved: {blocked.why}. No code was requested.",
        blocked.fix,
        kind=Problem.NO_ACCESS,
    )


def home_blocked() -> Blocked | None:
    """The config directory, `credentials/` or `signin/` exist but cannot be written or entered
    (or, missing, cannot be made), else None."""
    home = paths.config_dir()
    for directory in (home, paths.credentials_dir(), home / "signin"):
        found = _directory_blocked(directory, home)
        if found is not None:
            return found
    return None


def slot_blocked(storage_name: str) -> Blocked | None:
    """`home_blocked`, then the slot's own file and config.toml: whatever would make saving a
    sign-in to `storage_name` fail, found before anything is asked of the server."""
    found = home_blocked()
    if found is not None:
        return found
    found = _file_blocked(paths.credentials_path(storage_name))
    if found is not None:
        return found
    return _file_blocked(paths.config_path(), follow=False)


def _directory_blocked(directory: pathlib.Path, home: pathlib.Path) -> Blocked | None:
    try:
        info = os.stat(directory)
    except FileNotFoundError:
        return _cannot_make(directory, home)
    except OSError as exc:  # a parent that cannot be entered
        return _denied(directory, home, exc)
    if not stat.S_ISDIR(info.st_mode):
        return Blocked(directory, Phrase(NOT_A_DIRECTORY, path=directory), Phrase(MOVE_AWAY, path=directory))
    if not os.access(directory, os.W_OK | os.X_OK):
        return _denied(directory, home, PermissionError(13, os.strerror(13)), info.st_uid)
    return None


def _cannot_make(directory: pathlib.Path, home: pathlib.Path) -> Blocked | None:
    """A missing directory: its nearest existing parent must let it be made."""
    parent = directory.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if os.access(parent, os.W_OK | os.X_OK):
        return None
    try:
        uid = os.stat(parent).st_uid
    except OSError:
        uid = None
    return _denied(parent, home, PermissionError(13, os.strerror(13)), uid)


def _denied(path: pathlib.Path, home: pathlib.Path, exc: OSError, uid: int | None = None) -> Blocked:
    if uid is None:  # the owner of the nearest entry that can be seen: where the refusal comes from
        found = not_mine(path)
        uid = found[1] if found is not None else os.getuid()
    if uid != os.getuid():
        mine = home if _within(path, home) else path
        return Blocked(path, Phrase(NOT_YOURS, path=path, owner=whose(uid)), give_back_step(mine))
    reason = exc.strerror or str(exc)
    return Blocked(path, Phrase(NO_WRITE, path=path, reason=reason), Phrase(CHECK_IT, path=path))


def give_back_step(path: str | os.PathLike[str] | None = None) -> str:
    """The one fix for files of another owner (nothing here changes an owner): `sudo chown -R` of
    the config directory (or of `path`), as a `Phrase`."""
    return Phrase(GIVE_BACK, command=give_back(paths.config_dir() if path is None else path))


def _within(path: pathlib.Path, home: pathlib.Path) -> bool:
    return path == home or home in path.parents


def _file_blocked(path: pathlib.Path, follow: bool = True) -> Blocked | None:
    """A file a save reads, then replaces (a temporary file renamed over it: its directory must
    take one; through a link, the link's target's directory)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _denied(path, paths.config_dir(), exc)
    if stat.S_ISLNK(info.st_mode) and follow:
        target = pathlib.Path(os.path.realpath(path))
        if not target.parent.is_dir():
            shown = os.readlink(path)
            return Blocked(
                path, Phrase(GONE_TARGET, path=path, target=shown), Phrase(DANGLING_FIX, target=shown, path=path)
            )
        if not os.path.lexists(target):  # the target's directory is there: a save creates the file
            return _directory_blocked(target.parent, paths.config_dir()) if target.parent != path.parent else None
        try:
            info = os.stat(target)
        except OSError as exc:
            return _denied(target, paths.config_dir(), exc)
        path = target
    elif stat.S_ISLNK(info.st_mode):
        return None  # config.toml through a link: its own reader says what it finds
    if not stat.S_ISREG(info.st_mode):
        kind = Phrase(N_("a directory")) if stat.S_ISDIR(info.st_mode) else Phrase(N_("not a regular file"))
        return Blocked(path, Phrase(NOT_A_FILE, path=path, kind=kind), Phrase(MOVE_AWAY, path=path))
    if not os.access(path, os.R_OK) or not os.access(path.parent, os.W_OK | os.X_OK):
        return _denied(path, paths.config_dir(), PermissionError(13, os.strerror(13)), info.st_uid)
    return None
