"""The permission plan of one slot (the inspector's `m`): the mode changes that make it private,
as seen now, each made through `repairs.fix_mode` (the same object, the same fact, never through a
link)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from tui.core.credentials.repairs import NotDone, Seen, fix_mode, link_target, seen
from tui.core.spec import paths
from tui.core.text.phrase import N_, Phrase


@dataclass(frozen=True)
class ModeChange:
    what: Seen
    mode: int  # the mode it should have

    def describe(self, show: Callable[[str], str] = str) -> str:
        return (
            f"{show(self.what.path)}: {self.what.permissions:04o} -> {self.mode:04o}"  # a chmod, said alike everywhere
        )


def permission_plan(storage_name: str) -> tuple[list[ModeChange], list[str]]:
    """The mode changes that make a slot private (config dir and credentials dir 0700, the slot
    file 0600), as seen now; and what will not be changed because it is a link (with where it
    points)."""
    plan: list[ModeChange] = []
    links: list[str] = []
    for path, mode in (
        (paths.config_dir_str(), 0o700),
        (os.path.join(paths.config_dir_str(), "credentials"), 0o700),
        (paths.credentials_file(storage_name), 0o600),
    ):
        found = seen(path)
        if found is None:
            continue
        if found.is_link:
            links.append(
                Phrase(
                    N_("{path} is a symbolic link to {target}: not changed through the link"),
                    path=path,
                    target=link_target(path),
                )
            )
        elif found.permissions != mode:
            plan.append(ModeChange(found, mode))
    return plan, links


def apply_plan(plan: list[ModeChange]) -> tuple[list[str], list[str]]:
    """Each change through `fix_mode`: (what was done, what was not and why)."""
    done, not_done = [], []
    for change in plan:
        try:
            done.append(fix_mode(change.what, change.mode))
        except NotDone as exc:
            not_done.append(exc.reason)
        except OSError as exc:
            not_done.append(f"{change.what.path}: {exc.strerror or exc}")
    return done, not_done
