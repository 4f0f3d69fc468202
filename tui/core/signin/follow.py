"""A sign-in attempt on disk, so that it outlives its terminal and other terminals can follow it.

`<config_dir>/signin/` (mode 0700; its own directory, not `credentials/`, so nothing takes it for a
slot) holds, per region:

- `<region>.json` (0600): the attempt's `Record`. While it is being requested: who requests it and
  when (no code yet). While it is pending: the device code (a bearer secret until it expires:
  kept like the tokens), the user code and addresses, the deadline (wall-clock epoch) and what it
  means (the code's lifetime: "expired"; the spec's budget: "timeout"), the interval, when it last
  polled, whether its poller lost its terminal. When it ends it is reduced to the outcome (no
  device code stays on disk): how it ended, who signed in, whether a person has seen it ("while
  you were away…"). Records older than 24 h are dropped when read.
- `<region>.lock`: the poller's lease. Exactly one process polls a region: the one holding
  `flock(LOCK_EX)` on this file. Never deleted (deleting a held flock file breaks the exclusion).
- `<region>.discard`: a request, from a watching terminal, that the poller discard the attempt.

**Joining is one atomic step** (`join`): whoever takes the lease leads (a new attempt, or the
live attempt of a poller that died); everyone else follows the record of the lease holder. So any
number of terminals starting `login` into one region at once make one device authorization.

**Trust.** Everything is opened below the config directory with O_NOFOLLOW through a directory
descriptor, and a directory, record or lease is believed only when it is the person's own and
private (owner = effective uid, no group/other write; checked on the opened descriptor). Anything
else is a `RecordProblem`: never followed; the attempt goes on without the record and says why.
"""

from __future__ import annotations

import contextlib
import enum
import os
import stat
import time
from dataclasses import dataclass

from tui.core.files import ownfiles
from tui.core.signin.place import DIRECTORY, DISCARD, LEASE_FILES, file_name, record_name, wrong
from tui.core.signin.record import ENDED, PENDING, REQUESTING, STATES, Record
from tui.core.spec.regions import Region
from tui.core.system.locks import try_lock

KEEP = 24 * 3600  # seconds an ended or stale record is kept
JOIN_SLACK = 1.0  # seconds: an attempt ended this long before we joined may still be the one we joined
_NOFOLLOW, _CLOEXEC = ownfiles.NOFOLLOW, ownfiles.CLOEXEC
RecordProblem = ownfiles.RecordProblem
__all__ = [
    "DIRECTORY",
    "ENDED",
    "JOIN_SLACK",
    "Joined",
    "KEEP",
    "Lease",
    "PENDING",
    "REQUESTING",
    "Record",
    "RecordProblem",
    "Role",
    "STATES",
    "Watch",
    "abandon",
    "begin",
    "clear_discard",
    "directory_path",
    "discard_requested",
    "is_pending",
    "join",
    "load",
    "read",
    "remove",
    "request_discard",
    "watch_step",
    "write",
]


# -- reading and writing ---------------------------------------------------------------------------


def directory_path() -> str:
    return ownfiles.directory_path(DIRECTORY)


def write(record: Record) -> None:
    """Replace the region's record atomically (0600). RecordProblem or OSError when it cannot be."""
    fd = ownfiles.created_dir(DIRECTORY)
    try:
        ownfiles.write_record(fd, record_name(record.region), record.to_json())
    finally:
        os.close(fd)


def load(region: Region, now: float | None = None) -> Record | None:
    """The region's record, or None (none, unreadable, or older than 24 h: then it is removed).
    RecordProblem when the directory or the record is a link or not the person's own and private."""
    name = record_name(region)
    fd = ownfiles.open_dir(DIRECTORY, create=False)
    if fd is None:
        return None
    try:
        record = Record.parse(ownfiles.read_record(fd, name), region)
        if record is None:
            return None
        if (time.time() if now is None else now) - record.started_at > KEEP:
            ownfiles.unlink(fd, name)
            return None
        return record
    finally:
        os.close(fd)


def read(region: Region, now: float | None = None) -> Record | None:
    """`load` for those that only show: a record that cannot be trusted is none (doctor says why)."""
    try:
        return load(region, now)
    except RecordProblem:
        return None


def remove(region: Region) -> None:
    """The region's record and discard request go (regular files only: a directory or a FIFO at
    either name is doctor's to remove, after it says so)."""
    with ownfiles.existing_dir(DIRECTORY) as fd:
        if fd is not None:
            _unlink_regular(fd, record_name(region))
            _unlink_regular(fd, file_name(region, DISCARD))


def is_pending(record: Record | None, now: float | None = None) -> bool:
    return record is not None and record.is_live(now)


# -- the poller's lease and the discard request ----------------------------------------------------


class Lease:
    """`flock` on `signin/<region>.lock` and `signin/<region>.lease` (`place.LEASE_FILES`): who
    holds it polls the region's attempt. Each of the two names that holds what sign-ins make (or
    nothing yet) is locked, `.lock` first; one that holds something else is passed over, so a
    wrong entry at one name never turns the lease off (`odd` reports it)."""

    def __init__(self, region: Region) -> None:
        self.region = region
        self.fds: list[int] = []

    def try_take(self) -> bool:
        """True when this process holds the lease now. RecordProblem when neither name can hold
        it (or the directory is a link, not a directory, or not the person's own and private)."""
        if self.fds:
            return True
        dir_fd = ownfiles.created_dir(DIRECTORY)
        taken: list[int] = []
        problems: list[str] = []
        try:
            for suffix in LEASE_FILES:
                name = file_name(self.region, suffix)
                fd = _open_lease(dir_fd, name, problems)
                if fd is None:
                    continue
                if not try_lock(fd):
                    os.close(fd)
                    _close_all(taken)
                    return False
                taken.append(fd)
        finally:
            os.close(dir_fd)
        if not taken:
            raise RecordProblem("; ".join(problems))
        self.fds = taken
        return True

    def release(self) -> None:
        _close_all(self.fds)  # closing releases the flock; the files stay
        self.fds = []

    @property
    def held(self) -> bool:
        return bool(self.fds)


def _open_lease(dir_fd: int, name: str, problems: list[str]) -> int | None:
    """A descriptor of the lease file `name` (made 0600 when absent), or None with the reason
    added to `problems` when the name holds something sign-ins do not make (never followed,
    never blocked on: a FIFO is opened without waiting, then passed over)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(name, flags, 0o600, dir_fd=dir_fd)
    except OSError as exc:
        try:
            why = wrong(os.stat(name, dir_fd=dir_fd, follow_symlinks=False)) or exc.strerror or str(exc)
        except OSError:
            why = f"cannot be opened ({exc.strerror or exc})"
        problems.append(f"{directory_path()}/{name} {why}")
        return None
    distrusted = wrong(os.fstat(fd))
    if distrusted is not None:
        os.close(fd)
        problems.append(f"{directory_path()}/{name} {distrusted}")
        return None
    return fd


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def request_discard(region: Region) -> None:
    """Ask the region's poller to discard its attempt. RecordProblem when the name holds
    something sign-ins do not make (a FIFO is never waited on)."""
    fd = ownfiles.created_dir(DIRECTORY)
    name = file_name(region, DISCARD)
    try:
        try:
            made = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=fd)
        except OSError as exc:
            raise RecordProblem(f"{directory_path()}/{name} cannot be made ({exc.strerror or exc})") from None
        why = wrong(os.fstat(made))
        os.close(made)
        if why is not None:
            raise RecordProblem(f"{directory_path()}/{name} {why}")
    finally:
        os.close(fd)


def discard_requested(region: Region) -> bool:
    """A discard request is a regular file of the person's own at the name: anything else there
    (a directory, a FIFO, another user's file) asks nothing."""
    with ownfiles.existing_dir(DIRECTORY) as fd:
        if fd is None:
            return False
        try:
            info = os.stat(file_name(region, DISCARD), dir_fd=fd, follow_symlinks=False)
        except OSError:
            return False
        return wrong(info) is None


def clear_discard(region: Region) -> None:
    """The discard request was honoured (or is stale for a new attempt that holds the lease);
    only a regular file is removed here (anything else at the name is doctor's)."""
    with ownfiles.existing_dir(DIRECTORY) as fd:
        if fd is not None:
            _unlink_regular(fd, file_name(region, DISCARD))


def _unlink_regular(dir_fd: int, name: str) -> None:
    with contextlib.suppress(OSError):
        if stat.S_ISREG(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            os.unlink(name, dir_fd=dir_fd)


def abandon(region: Region, wait: float = 0.0) -> None:
    """`login --new`, `n` on Home: discard the region's attempt, whoever polls it; with `wait`,
    give its poller that many seconds to let go of the lease (it stops within one interval)."""
    lease = Lease(region)
    try:
        if lease.try_take():
            lease.release()
            remove(region)
            return
        request_discard(region)
    except RecordProblem:  # nothing can be asked through the files: the record goes
        remove(region)
        return
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if lease.try_take():
            break
        time.sleep(0.2)
    lease.release()


# -- joining an attempt: one atomic step -------------------------------------------------------------


class Role(enum.Enum):
    LEAD = "lead"  # we hold the lease and nothing live is recorded: request a new code
    TAKE_OVER = "take over"  # we hold the lease and a live attempt is recorded: poll it ourselves
    FOLLOW = "follow"  # another process holds the lease: follow its record
    ALONE = "alone"  # the records cannot be trusted or used: a new attempt nobody can follow


@dataclass(frozen=True)
class Joined:
    role: Role
    record: Record | None = None  # the live attempt to take over or follow, when there is one
    problem: str | None = None  # for ALONE: why the records were not used
    at: float = 0.0  # wall clock, when we joined


def join(lease: Lease, now: float | None = None) -> Joined:
    """Take the region's lease or follow its holder: the lease alone decides, so two terminals
    can never both lead. A leader writes its `REQUESTING` record at once (`begin`)."""
    at = time.time() if now is None else now
    try:
        taken = lease.try_take()
        record = load(lease.region, at)
    except RecordProblem as exc:
        lease.release()
        return Joined(Role.ALONE, problem=str(exc), at=at)
    if not taken:
        return Joined(Role.FOLLOW, record if record is not None and record.state != ENDED else None, at=at)
    if is_pending(record, at):
        return Joined(Role.TAKE_OVER, record, at=at)
    clear_discard(lease.region)  # a request for an earlier attempt, now ended
    return Joined(Role.LEAD, at=at)


def begin(region: Region, now: float | None = None, account: str | None = None) -> Record:
    """The leader's first record: an attempt is on its way (no code yet), for followers;
    `account`: the named account its tokens go to (None: the region's own slot)."""
    record = Record(
        REQUESTING,
        region,
        time.time() if now is None else now,
        os.urandom(8).hex(),
        poller_pid=os.getpid(),
        account=account,
    )
    with contextlib.suppress(OSError, RecordProblem):
        write(record)
    return record


class Watch(enum.Enum):
    WAIT = "wait"  # the lease holder requests or polls: look again soon
    TAKE_OVER = "take over"  # the lease is ours now and the attempt is live: poll it
    ENDED = "ended"  # the attempt we joined ended: say how
    START = "start"  # the lease is ours and nothing is left to follow: start a new attempt


def watch_step(lease_ours: bool, record: Record | None, joined: Joined, following: str) -> Watch:
    """A follower's next move (pure): `following` is the id of the attempt it has seen, "" when
    it has seen none yet (the leader was still taking the lease)."""
    if record is not None and record.state == ENDED:
        ours = record.attempt == following if following else record.started_at >= joined.at - JOIN_SLACK
        if ours:
            return Watch.ENDED
    if not lease_ours:
        return Watch.WAIT
    if is_pending(record):
        return Watch.TAKE_OVER
    return Watch.START
