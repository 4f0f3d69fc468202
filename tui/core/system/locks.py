"""`flock`, in this one place (#59 3: it was called directly in four modules): taking one without
waiting (`try_lock`), waiting for one (`lock`), letting go (`unlock`), and who holds one, on every
system: the lock itself is probed (taken for an instant, without waiting, and let go), so "nobody
holds it" is never a guess where the system keeps no list of locks. Linux also names the holder
(`/proc/locks`), for the words only; nothing decides on it. Another system's lock is a change here."""

from __future__ import annotations

import contextlib
import fcntl
import os

from tui.core.system.facts import platform


def try_lock(fd: int) -> bool:
    """Take an exclusive flock on `fd` without waiting: True when taken, False when another holds
    it (any other failure raises OSError)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def lock(fd: int) -> None:
    """Take an exclusive flock on `fd`, waiting for it (a lock held for an instant only)."""
    fcntl.flock(fd, fcntl.LOCK_EX)


def unlock(fd: int) -> None:
    """Let go of a flock on `fd` (closing it does too); a failure changes nothing."""
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)


def held(path: str) -> bool:
    """A process holds a flock on the regular file at `path` now (never through a link, never
    waiting on a FIFO; a file that cannot be opened is reported as held: nothing is removed on a
    guess)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        try:
            if not try_lock(fd):
                return True
        except OSError:
            return True
        unlock(fd)
        return False
    finally:
        os.close(fd)


def holder(path: str) -> int | None:
    """The pid holding a flock on `path` where the system names it (Linux's /proc/locks); None
    when unknown or unheld."""
    if not platform().startswith("linux"):
        return None
    try:
        info = os.stat(path)
        with open("/proc/locks", encoding="ascii", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    wanted = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    for line in lines:
        parts = line.split()
        if "->" in parts:  # a waiter, not the holder
            continue
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5] == wanted:
            try:
                return int(parts[4])
            except ValueError:
                return None
    return None


def program(pid: int) -> str | None:
    """The program `pid` runs, its first words, where the system names it (Linux's
    /proc/<pid>/cmdline); None elsewhere or when it cannot be read: for the words only."""
    if not platform().startswith("linux"):
        return None
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            argv = handle.read(4096).split(b"\0")
    except OSError:
        return None
    words = [word.decode("utf-8", "replace") for word in argv if word][:3]
    return " ".join(words) or None
