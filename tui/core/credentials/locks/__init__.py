"""A slot's locks, across this program and the official clients, in three rooms:

- `acquire`: holding a slot (the thread lock, the flock file, the official client's lock
  directory, in that order), releasing on every exit path;
- `waits`: how a wait for a lock is said (`reporting_to`), bounded and stopped (`cancellable`);
- `stale`: removing what a dead holder left;
- `state`: what is at the lock paths, for the locks, `doctor` and repairs.
"""

from tui.core.credentials.locks.acquire import hold_slot, hold_slot_sync, release_all
from tui.core.credentials.locks.state import (
    DirLockState,
    LockUnavailable,
    age_text,
    dir_lock_path,
    dir_lock_state,
    flock_holder,
    flock_path,
    is_stale,
    legacy_lock_path,
    lock_age,
)
from tui.core.credentials.locks.waits import (
    STOPPED_WAITING,
    cancellable,
    lock_timeout,
    pause,
    report_wait,
    reporting_to,
)

__all__ = [
    "DirLockState",
    "LockUnavailable",
    "age_text",
    "dir_lock_path",
    "dir_lock_state",
    "flock_holder",
    "flock_path",
    "hold_slot",
    "hold_slot_sync",
    "is_stale",
    "legacy_lock_path",
    "lock_age",
    "STOPPED_WAITING",
    "cancellable",
    "lock_timeout",
    "pause",
    "report_wait",
    "release_all",
    "reporting_to",
]
