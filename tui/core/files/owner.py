"""Whose a file is, in words a person can act on: `root (uid 0)`, and the one command that gives
a home back to the person running this program (a first sign-in under `sudo` leaves
`~/.assistant-code` to root: the most common broken home there is)."""

from __future__ import annotations

import os
import pwd


def whose(uid: int) -> str:
    """`root (uid 0)`; `uid 1234` when the system names no user for it."""
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (KeyError, OverflowError):
        return f"uid {uid}"


def owner_of(path: str | os.PathLike[str]) -> int | None:
    """The uid of the entry at `path` (a link itself, not its target), None when it cannot be seen."""
    try:
        return os.lstat(path).st_uid
    except OSError:
        return None


def not_mine(path: str | os.PathLike[str]) -> tuple[str, int] | None:
    """(entry, uid) of the nearest of `path` and its parents that can be seen, when it is not the
    caller's; None when it is: where a `Permission denied` below comes from."""
    current = os.path.abspath(path)
    while True:
        uid = owner_of(current)
        if uid is not None:
            return None if uid == os.getuid() else (current, uid)
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def give_back(path: str | os.PathLike[str]) -> str:
    """The command that makes `path` (and what is inside) the person's own again. `sudo`: a plain
    `chown` of someone else's file fails for anyone but root."""
    return f'sudo chown -R "$USER" {path}'
