"""Repairs a person asks for from the inspector or the CLI; each changes one thing, loses nothing."""

from __future__ import annotations

import os
import pathlib
import stat

from tui.core import paths
from tui.core.credentials import move_aside


def fix_permissions(storage_name: str) -> list[str]:
    """Set the credential file to 0600, the config and credentials dirs to 0700; returns what changed."""
    changed = []
    directory = paths.credentials_dir()
    path = paths.credentials_path(storage_name)
    for target, mode in ((paths.config_dir(), 0o700), (directory, 0o700), (path, 0o600)):
        try:
            current = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            continue
        if current != mode:
            os.chmod(target, mode)
            changed.append(f"{target}: {current:04o} -> {mode:04o}")
    return changed


def move_corrupt_aside(storage_name: str) -> pathlib.Path:
    """Rename an unreadable credential file to `<name>.json.corrupt-<timestamp>`."""
    return move_aside(paths.credentials_path(storage_name))


def remove_slot(storage_name: str) -> pathlib.Path:
    """Sign out of a slot: remove its credential file under the slot's locks.

    The lock files stay: deleting a flock file another process holds breaks mutual exclusion.
    """
    from tui.core.locks import hold_slot_sync

    path = paths.credentials_path(storage_name)
    with hold_slot_sync(storage_name, purpose="signing out"):
        path.unlink()
    return path
