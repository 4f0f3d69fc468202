"""Repairs a person asks for from the inspector or the CLI; each changes one thing, loses nothing."""

from __future__ import annotations

import os
import pathlib
import stat

from tui.core import paths
from tui.core.credentials import move_aside
from tui.core.locks import hold_slot_sync


def permission_plan(storage_name: str) -> list[tuple[pathlib.Path, int, int]]:
    """(path, current mode, wanted mode) for each of the config dir, credentials dir and the
    slot's file whose mode is not private; what `fix_permissions` would change."""
    plan = []
    targets = (
        (paths.config_dir(), 0o700),
        (paths.credentials_dir(), 0o700),
        (paths.credentials_path(storage_name), 0o600),
    )
    for target, mode in targets:
        try:
            current = stat.S_IMODE(target.stat().st_mode)
        except OSError:
            continue
        if current != mode:
            plan.append((target, current, mode))
    return plan


def describe_plan(plan: list[tuple[pathlib.Path, int, int]], show=str) -> list[str]:
    return [f"{show(path)}: {current:04o} -> {mode:04o}" for path, current, mode in plan]


def fix_permissions(storage_name: str) -> list[str]:
    """Set the credential file to 0600, the config and credentials dirs to 0700; returns what changed."""
    plan = permission_plan(storage_name)
    for target, _current, mode in plan:
        os.chmod(target, mode)
    return describe_plan(plan)


def move_corrupt_aside(storage_name: str) -> pathlib.Path:
    """Rename an unreadable credential file to `<name>.json.corrupt-<timestamp>`."""
    return move_aside(paths.credentials_path(storage_name))


def remove_slot(storage_name: str) -> pathlib.Path:
    """Sign out of a slot: remove its credential file under the slot's locks.

    The lock files stay: deleting a flock file another process holds breaks mutual exclusion.
    """
    path = paths.credentials_path(storage_name)
    with hold_slot_sync(storage_name, purpose="signing out"):
        path.unlink()
    return path
