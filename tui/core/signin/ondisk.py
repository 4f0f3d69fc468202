"""The sign-in attempts on disk, for those that only show them: Home, `status` and the overview.

Each start of Home and each `status` asks which sign-ins wait for approval and which ended while
no terminal watched. Nearly always none: then the sign-in machinery is not loaded at all, neither
`follow` (the lease, joining, watching) nor `record` (the record's type), which are a quarter of
what our own modules cost Home's first frame (docs/performance.md). Where a record file is there,
`follow` reads it with all its checks: the look here trusts nothing, it only decides whether to
read.
"""

from __future__ import annotations

import os

from tui.core.files import ownfiles
from tui.core.signin.place import DIRECTORY, record_name
from tui.core.spec.regions import Region

TYPE_CHECKING = False  # not `from typing import`: nothing of this module needs typing at run time
if TYPE_CHECKING:  # pragma: no cover
    from tui.core.signin.record import Record


def _there(region: Region) -> bool:
    """A name is there for the region's record (of any kind: a link or a stranger's file is for
    `follow` to refuse, not for this look to believe)."""
    return os.path.lexists(os.path.join(ownfiles.directory_path(DIRECTORY), record_name(region)))


def _any_there() -> bool:
    return any(_there(region) for region in Region)


def waiting(now: float | None = None) -> list[Record]:
    """Attempts that can still be approved, one per region at most."""
    if not _any_there():
        return []
    from tui.core.signin.shown import waiting as read_waiting  # lazy: only where a record is on disk

    return read_waiting(now)


def away(now: float | None = None) -> list[Record]:
    """Ended attempts nobody has seen yet (one per region), oldest first."""
    if not _any_there():
        return []
    from tui.core.signin.shown import away as read_away  # lazy: only where a record is on disk

    return read_away(now)


def waiting_in(region: Region) -> Record | None:
    """The region's attempt while it can still be approved (Home's Enter joins it, `n` abandons it)."""
    if not _there(region):
        return None
    from tui.core.signin.shown import waiting_in as read_waiting_in  # lazy: only where a record is on disk

    return read_waiting_in(region)


def seen(region: Region) -> None:
    """A person saw how the region's attempt ended (shown on a terminal): its record goes."""
    if _there(region):
        from tui.core.signin.shown import mark_seen  # lazy: only where a record is on disk

        mark_seen(region)


def abandon(region: Region) -> None:
    """Discard the region's attempt, whoever polls it (`follow.abandon`)."""
    from tui.core.signin.follow import abandon as discard  # lazy: only where a record is on disk

    discard(region)
