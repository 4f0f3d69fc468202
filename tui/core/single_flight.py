"""One refresh at a time per credential slot: across tasks, threads, event loops and processes.

Inside the process a `threading.Lock` per slot (waited for without blocking the event loop);
across processes an exclusive `flock` on `<slot>.json.lock` beside the credential file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
import threading
import time
from collections.abc import AsyncIterator

from .atomic import ensure_private_dir
from .errors import AuthError

LOCK_WAIT_LIMIT = 120.0  # seconds; longer than any refresh (10 s requests) can legitimately take
_POLL_START = 0.002
_POLL_MAX = 0.05

_registry_lock = threading.Lock()
_thread_locks: dict[str, threading.Lock] = {}


def _thread_lock(key: str) -> threading.Lock:
    with _registry_lock:
        return _thread_locks.setdefault(key, threading.Lock())


def _try_flock(fd: int) -> bool:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: the in-process lock still holds
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _unflock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover
        return
    fcntl.flock(fd, fcntl.LOCK_UN)


@contextlib.asynccontextmanager
async def single_flight(lock_file: pathlib.Path) -> AsyncIterator[None]:
    key = str(lock_file)
    lock = _thread_lock(key)
    deadline = time.monotonic() + LOCK_WAIT_LIMIT
    delay = _POLL_START
    while not lock.acquire(blocking=False):
        if time.monotonic() > deadline:
            raise AuthError(f"Timed out waiting for another refresh of {lock_file.stem}")
        await asyncio.sleep(delay)
        delay = min(delay * 2, _POLL_MAX)
    fd = -1
    try:
        try:
            ensure_private_dir(lock_file.parent)
            fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError:
            fd = -1  # cannot create the lock file (read-only dir): fall back to the in-process lock
        if fd >= 0:
            delay = _POLL_START
            while not _try_flock(fd):
                if time.monotonic() > deadline:
                    raise AuthError(f"Timed out waiting for another refresh of {lock_file.stem}")
                await asyncio.sleep(delay)
                delay = min(delay * 2, _POLL_MAX)
        try:
            yield
        finally:
            if fd >= 0:
                _unflock(fd)
    finally:
        if fd >= 0:
            os.close(fd)
        lock.release()
