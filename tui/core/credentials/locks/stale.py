"""Cleaning up what a dead holder left: a stale lock directory (the official client's takeover
rule) and the flock file of versions before co-tenancy. Each re-checks what it removes."""

from __future__ import annotations

import os
import stat

from tui.core.credentials.locks.state import DirLockState, LockUnavailable, legacy_lock_path


def remove_stale(state: DirLockState) -> None:
    """Remove a stale lock directory (the official client does the same); one that cannot be
    removed fails at once with the reason, instead of a wait that never ends."""
    try:
        os.rmdir(state.path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise LockUnavailable(
            f"Cannot remove the stale lock {state.describe()} ({exc.strerror or exc}); remove it by hand"
        ) from None


def remove_legacy_lock(storage_name: str) -> None:
    path = legacy_lock_path(storage_name)
    try:
        if stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)
    except OSError:
        pass
