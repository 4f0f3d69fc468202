"""A sign-in attempt on disk, so that it outlives its terminal and another terminal can follow it.

`<config_dir>/signin/` (mode 0700; its own directory, not `credentials/`, so nothing takes it for a
slot) holds, per region:

- `<region>.json` (0600): the attempt. While it is pending: when it started, the device code (a
  bearer secret until it expires: kept like the tokens), the user code and addresses, the deadline
  (wall-clock epoch), the interval, when it last polled, whether its poller lost its terminal.
  When it ends it is reduced to the outcome (no device code stays on disk): how it ended, who
  signed in, and whether a person has seen it ("while you were away…"). Records older than 24 h
  are dropped when read.
- `<region>.lock`: the poller's lease. Exactly one process polls a device code: the one holding
  `flock(LOCK_EX)` on this file. The others watch the record; when the poller dies (even by
  SIGKILL) the kernel releases its lease and a watcher takes it over. Never deleted (deleting a
  held flock file breaks the exclusion).
- `<region>.discard`: a request, from a watching terminal, that the poller discard the attempt.

Everything is created and opened below the config directory with O_NOFOLLOW and written
atomically (a temporary file in the same directory, renamed): never through a link.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import time

from tui.core import ownfiles

DIRECTORY = "signin"
KEEP = 24 * 3600  # seconds an ended or stale record is kept
PENDING, ENDED = "pending", "ended"
OUTCOMES = ("success", "access_denied", "expired", "timeout", "error", "discarded")
_NOFOLLOW, _CLOEXEC = ownfiles.NOFOLLOW, ownfiles.CLOEXEC
RecordProblem = ownfiles.RecordProblem


def directory_path() -> str:
    return ownfiles.directory_path(DIRECTORY)


def _open_dir(create: bool) -> int | None:
    return ownfiles.open_dir(DIRECTORY, create)


def _name(region: str) -> str:
    return "global" if region == "global" else "cn"


def write(region: str, record: dict) -> None:
    """Replace the region's record atomically (0600)."""
    fd = _open_dir(create=True)
    try:
        ownfiles.write_record(fd, _name(region) + ".json", record)
    finally:
        os.close(fd)


def read(region: str, now: float | None = None) -> dict | None:
    """The region's record, or None (none, unreadable, or older than 24 h: then it is removed)."""
    name = _name(region) + ".json"
    with ownfiles.existing_dir(DIRECTORY) as fd:
        record = None if fd is None else ownfiles.read_record(fd, name)
        if record is None:
            return None
        current = time.time() if now is None else now
        if current - _number(record.get("started_at")) > KEEP:
            ownfiles.unlink(fd, name)
            return None
        return record


def remove(region: str) -> None:
    fd = _open_dir(create=False) if os.path.lexists(directory_path()) else None
    if fd is None:
        return
    try:
        ownfiles.unlink(fd, _name(region) + ".json", _name(region) + ".discard")
    finally:
        os.close(fd)


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def is_pending(record: dict | None, now: float | None = None) -> bool:
    """A record of an attempt that can still be approved: pending, before its deadline."""
    current = time.time() if now is None else now
    return bool(record) and record.get("state") == PENDING and _number(record.get("deadline")) > current


def ended(record: dict, outcome: str, identity: str | None, seen: bool, detail: str | None = None) -> dict:
    """The record reduced to how the attempt ended: no device code, no user code, no address."""
    return {
        "version": 1,
        "state": ENDED,
        "region": record.get("region"),
        "started_at": record.get("started_at"),
        "ended_at": int(time.time()),
        "outcome": outcome if outcome in OUTCOMES else "error",
        "identity": identity,
        "detail": detail,
        "seen": seen,
    }


def away(now: float | None = None) -> list[dict]:
    """Ended attempts nobody has seen yet (one per region), oldest first."""
    found = [record for record in (read(region, now) for region in ("cn", "global")) if record]
    unseen = [r for r in found if r.get("state") == ENDED and not r.get("seen") and r.get("outcome") != "discarded"]
    return sorted(unseen, key=lambda r: _number(r.get("started_at")))


def mark_seen(region: str) -> None:
    """The person saw how it ended: the record has nothing left to say and goes."""
    record = read(region)
    if record is not None and record.get("state") == ENDED:
        remove(region)


# -- the poller's lease and the discard request ----------------------------------------------------

class Lease:
    """`flock` on `signin/<region>.lock`: who holds it polls the device code."""

    def __init__(self, region: str) -> None:
        self.region = _name(region)
        self.fd: int | None = None

    def try_take(self) -> bool:
        if self.fd is not None:
            return True
        dir_fd = _open_dir(create=True)
        try:
            fd = os.open(self.region + ".lock", os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=dir_fd)
        except OSError as exc:
            raise RecordProblem(f"{directory_path()}/{self.region}.lock cannot be opened ({exc.strerror or exc})") from None
        finally:
            os.close(dir_fd)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise RecordProblem(f"{directory_path()}/{self.region}.lock is not a regular file")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self.fd = fd
        return True

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)  # closing releases the flock; the file stays
            self.fd = None

    @property
    def held(self) -> bool:
        return self.fd is not None


def request_discard(region: str) -> None:
    fd = _open_dir(create=True)
    try:
        os.close(os.open(_name(region) + ".discard", os.O_WRONLY | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=fd))
    finally:
        os.close(fd)


def discard_requested(region: str) -> bool:
    with ownfiles.existing_dir(DIRECTORY) as fd:
        if fd is None:
            return False
        try:
            os.stat(_name(region) + ".discard", dir_fd=fd, follow_symlinks=False)
            return True
        except OSError:
            return False


def clear_discard(region: str) -> None:
    """The discard request was honoured (or is stale for a new attempt that holds the lease)."""
    with ownfiles.existing_dir(DIRECTORY) as fd:
        if fd is not None:
            ownfiles.unlink(fd, _name(region) + ".discard")
