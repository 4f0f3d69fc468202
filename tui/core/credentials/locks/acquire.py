"""Holding a slot: one refresh or credential write of a slot at a time, across this program and the official clients.

A slot `<name>` is held through three locks, always taken in this order and released in reverse:

1. a `threading.Lock` per slot, for the tasks, threads and event loops of this process;
2. `fcntl.flock(LOCK_EX)` on `<config_dir>/credentials/<name>.lock`, the legacy official client's
   lock (and ours). The file is never deleted: deleting a held flock file breaks mutual exclusion;
3. the directory `<config_dir>/oauth/<name>.lock`, made with `mkdir`, the current official
   client's lock (proper-lockfile semantics): its mtime is kept fresh every second by a thread
   while held (the official client calls a lock older than 5 s stale and takes it over), a stale
   one is removed and retaken, and it is removed on release, on SIGTERM/SIGHUP and at exit.

Nothing here is created through a symlink. A wait longer than a second is reported (which lock,
which process when the kernel tells); a wait past the bound fails closed with `AuthError`: no
refresh is ever sent without all three locks.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator

from tui.core.credentials.locks.stale import remove_legacy_lock, remove_stale
from tui.core.credentials.locks.state import (
    DirLockState,
    LockUnavailable,
    describe_dir_lock,
    describe_flock,
    dir_lock_path,
    dir_lock_state,
    flock_path,
    is_stale,
)
from tui.core.credentials.locks.waits import (  # re-exported: the locks package says them
    _report,
    lock_timeout,
    pause,
)
from tui.core.errors import AuthError, Problem
from tui.core.files.atomic import ensure_private_dir
from tui.core.signals import deaths_held, on_deadly_signal
from tui.core.spec import paths
from tui.core.text.phrase import N_, Phrase, said

TOUCH_EVERY = 1.0  # seconds between mtime updates of a held directory lock (official: 2.5)
ANOTHER_TASK = Phrase(N_("another task of this process"))
REFRESHING, WRITING = Phrase(N_("refreshing")), Phrase(N_("writing"))  # what a wait is for
REPORT_AFTER = 1.0  # seconds of waiting before we say what we wait for
_POLL_START = 0.005
_POLL_MAX = 0.1


class _Wait:
    """One bounded (or unbounded) wait for a slot's locks, reporting once after a second."""

    def __init__(self, storage_name: str, timeout: float | None, purpose: str) -> None:
        self.storage_name = storage_name
        self.purpose = purpose
        self.started = time.monotonic()
        self.deadline = None if timeout is None else self.started + timeout
        self.timeout = timeout
        self.reported: str | None = None
        self.delay = _POLL_START

    def waited(self) -> float:
        return time.monotonic() - self.started

    def next_delay(self, lock: str, describe: Callable[[], str] | None = None) -> float:
        """Called after a failed attempt on `lock`; raises AuthError past the deadline. The wait
        is reported once per lock, as `describe()` says it (who holds it, since when)."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise AuthError(
                f"Gave up after {self.timeout:g} s waiting for {describe() if describe else lock} of "
                f"credential slot {self.storage_name}; nothing was sent. Another process is using "
                "the slot: try again when it has finished.",
                kind=Problem.LOCKED,
            )
        if self.waited() >= REPORT_AFTER and self.reported != lock:
            self.reported = lock
            what = describe() if describe else lock
            template = (
                N_("Waiting for {lock} of credential slot {slot} before {purpose}…")
                if self.deadline is None
                else N_("Waiting for {lock} of credential slot {slot} before {purpose} (up to {seconds} s)…")
            )
            _report(
                said(
                    Phrase(
                        template,
                        lock=what,
                        slot=self.storage_name,
                        purpose=self.purpose,
                        seconds="" if self.timeout is None else f"{self.timeout:g}",
                    )
                )
            )
        delay = self.delay
        self.delay = min(self.delay * 2, _POLL_MAX)
        return delay

    def reset_backoff(self) -> None:
        self.delay = _POLL_START


_registry_lock = threading.Lock()
_thread_locks: dict[tuple[str, str], threading.Lock] = {}


def _thread_lock(storage_name: str) -> threading.Lock:
    key = (paths.config_dir_str(), storage_name)
    with _registry_lock:
        return _thread_locks.setdefault(key, threading.Lock())


def _open_no_follow(path: str, flags: int) -> int:
    """Open (creating with 0600) without following a symlink at the last component."""
    try:
        return os.open(path, flags | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as exc:
        if os.path.islink(path):
            raise LockUnavailable(f"Refusing to use the lock file {path}: it is a symbolic link") from None
        raise LockUnavailable(f"Cannot create the lock file {path}: {exc.strerror or exc}") from None


def _open_flock_file(storage_name: str) -> int:
    path = flock_path(storage_name)
    try:
        ensure_private_dir(paths.credentials_dir())
    except OSError as exc:
        raise LockUnavailable(f"Cannot create the lock file {path}: {exc.strerror or exc}") from None
    fd = _open_no_follow(path, os.O_RDWR)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise LockUnavailable(f"Refusing to use the lock file {path}: it is not a regular file")
    return fd


def _try_flock(fd: int) -> bool:
    try:
        from tui.core.system.locks import try_lock  # lazy: off token's path
    except ImportError:  # pragma: no cover - not POSIX
        return True
    return try_lock(fd)


def _unflock(fd: int) -> None:
    try:
        from tui.core.system.locks import unlock  # lazy: off token's path
    except ImportError:  # pragma: no cover
        return
    unlock(fd)


class DirLock:
    """A held `oauth/<name>.lock` directory, its mtime kept fresh by a thread until released."""

    def __init__(self, path: str, inode: int) -> None:
        self.path = path
        self.inode = inode
        self.compromised = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._keep_fresh, name=f"lock-touch {path}", daemon=True)

    def _keep_fresh(self) -> None:
        while not self._stop.wait(TOUCH_EVERY):
            try:
                if os.lstat(self.path).st_ino != self.inode:
                    raise FileNotFoundError
                os.utime(self.path, follow_symlinks=False)
            except OSError:
                self.compromised = True  # removed or taken over: the re-read rules still protect us
                return

    def start(self) -> DirLock:
        with _held_lock:
            _held.add(self)
        _install_exit_cleanup()
        self._thread.start()
        return self

    def release(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        with _held_lock:
            _held.discard(self)
        self.remove()

    def remove(self) -> None:
        try:
            if os.lstat(self.path).st_ino == self.inode:
                os.rmdir(self.path)
        except OSError:
            pass


def _prepare_oauth_dir(storage_name: str) -> str:
    directory = os.path.dirname(dir_lock_path(storage_name))
    try:
        info = os.lstat(directory)
    except FileNotFoundError:
        try:
            ensure_private_dir(paths.config_dir())
            os.mkdir(directory, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise LockUnavailable(f"Cannot create the lock directory {directory}: {exc.strerror or exc}") from None
        info = os.lstat(directory)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise LockUnavailable(
            f"Refusing to lock in {directory}: it is not a plain directory (a symbolic link or a file)"
        )
    marker = os.path.join(directory, storage_name)
    try:  # the empty marker file the official client creates before locking
        os.close(
            os.open(
                marker, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600
            )
        )
    except OSError:
        pass  # a link or unwritable: the marker holds nothing, the lock does not depend on it
    return directory


def _try_dir_lock(path: str) -> DirLock | None:
    """One `mkdir` attempt; a stale lock is removed and retaken once. Something that is not a lock
    directory (a file, a link) fails at once with what to do: waiting would never end."""
    for attempt in (1, 2):
        try:
            _install_exit_cleanup()  # first: a signal after the mkdir must find the lock to remove
            with deaths_held():
                os.mkdir(path, 0o700)
                lock = DirLock(path, os.lstat(path).st_ino)
                with _held_lock:
                    _held.add(lock)
            return lock.start()
        except FileExistsError:
            state = dir_lock_state(path)
            if state.kind in (DirLockState.LINK, DirLockState.NOT_DIR):
                raise LockUnavailable(
                    f"Refusing to lock: {state.describe()}; remove it (`assistant-auth doctor --fix` shows how)"
                ) from None
            if attempt == 2 or state.age is None or not is_stale(state.age):
                return None
            remove_stale(state)
        except OSError as exc:
            raise LockUnavailable(f"Cannot create the lock directory {path}: {exc.strerror or exc}") from None
    return None


# -- holding a slot ---------------------------------------------------------------------------


def _acquire(storage_name: str, wait: _Wait, releases: list[Callable[[], object]]) -> Iterator[float]:
    """Take the three locks in order. Yields the delay before each retry; `releases` gets one
    callback per lock taken, so the driver can undo exactly what is held on any exit."""
    thread_lock = _thread_lock(storage_name)
    while not thread_lock.acquire(blocking=False):
        yield wait.next_delay(ANOTHER_TASK)
    releases.append(thread_lock.release)
    fd = _open_flock_file(storage_name)
    releases.append(lambda: os.close(fd))
    wait.reset_backoff()
    while not _try_flock(fd):
        yield wait.next_delay("flock", lambda: describe_flock(storage_name))
    releases.append(lambda: _unflock(fd))
    wait.reset_backoff()
    path = dir_lock_path(storage_name)
    _prepare_oauth_dir(storage_name)
    held = _try_dir_lock(path)
    while held is None:
        yield wait.next_delay("dir", lambda: describe_dir_lock(storage_name))
        held = _try_dir_lock(path)
    releases.append(held.release)
    remove_legacy_lock(storage_name)


def _release(releases: list[Callable[[], object]]) -> None:
    while releases:
        releases.pop()()


def _attempts(
    storage_name: str, timeout: float | None, purpose: str, releases: list[Callable[[], object]], write_error: bool
) -> Iterator[float]:
    wait = _Wait(storage_name, lock_timeout() if timeout == -1.0 else timeout, purpose)
    try:
        yield from _acquire(storage_name, wait, releases)
    except LockUnavailable as exc:
        if write_error:  # a sign-in: the spec's write error, with what could not be created
            raise AuthError(f"Failed to write credentials: {exc.detail}", kind=Problem.NOT_STORED) from None
        raise


@contextlib.asynccontextmanager
async def hold_slot(
    storage_name: str, *, timeout: float | None = -1.0, purpose: str = REFRESHING, write_error: bool = False
) -> AsyncIterator[None]:
    """Hold all three locks of a slot. `timeout` -1: the setting (30 s); None: wait until cancelled.

    `write_error`: a lock that cannot be created fails as `Failed to write credentials: …`.
    """
    import asyncio  # lazy: the command line's refresh holds the locks without an event loop

    releases: list[Callable[[], object]] = []
    try:
        for delay in _attempts(storage_name, timeout, purpose, releases, write_error):
            await asyncio.sleep(delay)
        yield
    finally:
        _release(releases)


@contextlib.contextmanager
def hold_slot_sync(
    storage_name: str, *, timeout: float | None = -1.0, purpose: str = WRITING, write_error: bool = False
) -> Iterator[None]:
    """`hold_slot` for synchronous callers (logout, repairs): same locks, same order, same bound."""
    releases: list[Callable[[], object]] = []
    try:
        for delay in _attempts(storage_name, timeout, purpose, releases, write_error):
            pause(delay)
        yield
    finally:
        _release(releases)


# -- release on every exit path -----------------------------------------------------------------

_held: set[DirLock] = set()
_held_lock = threading.Lock()
_atexit_registered = False


def release_all() -> None:
    """Remove every directory lock this process holds (exit, SIGTERM, SIGHUP)."""
    with _held_lock:
        held = list(_held)
        _held.clear()
    for lock in held:
        lock._stop.set()
        lock.remove()


def _install_exit_cleanup() -> None:
    """atexit once; the directory locks are removed before a deadly signal ends the process
    (`tui.core.signals` decides what a signal means)."""
    global _atexit_registered
    if not _atexit_registered:
        import atexit  # lazy: off token's path

        atexit.register(release_all)
        _atexit_registered = True
    on_deadly_signal(release_all)
