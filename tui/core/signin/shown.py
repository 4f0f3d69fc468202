"""The sign-in records as a person is told of them (Home, `status`, `login`, doctor): which attempt
waits for approval and whether anyone still polls it, which ended while nobody watched. Read
through `follow` with all its checks; `ondisk` decides first whether there is anything to read."""

from __future__ import annotations

from dataclasses import replace

from tui.core.signin.follow import ENDED, PENDING, Lease, Record, RecordProblem, is_pending, read, remove
from tui.core.spec.regions import Region


def polled(region: Region) -> bool:
    """A process holds the region's lease: the attempt's poller (or a terminal joining it) is
    alive; a process that ended let go of it. Looked at by taking the lease for an instant (a
    terminal joining in that instant follows, and takes over at its next look). True when the
    lease cannot be looked at: nothing is called abandoned on a guess."""
    lease = Lease(region)
    try:
        if not lease.try_take():
            return True
    except (OSError, RecordProblem):
        return True
    lease.release()
    return False


def shown(region: Region, now: float | None = None) -> Record | None:
    """The region's record as a person is told of it: a pending one says whether anyone polls it
    (`Record.polled`), and one past its deadline that nobody polls has ended (`left_behind`);
    never "waiting" for ever."""
    record = read(region, now)
    if record is None or record.state != PENDING:
        return record
    if polled(region):
        return record
    return replace(record, polled=False) if record.is_live(now) else record.left_behind()


def away(now: float | None = None) -> list[Record]:
    """Ended attempts nobody has seen yet (one per region), oldest first."""
    found = [record for record in (shown(region, now) for region in Region) if record]
    unseen = [r for r in found if r.state == ENDED and not r.seen and r.outcome != "discarded"]
    return sorted(unseen, key=lambda r: r.started_at)


def waiting(now: float | None = None) -> list[Record]:
    """Attempts that can still be approved, one per region at most."""
    records = [shown(region, now) for region in Region]
    return [record for record in records if record is not None and record.is_live(now)]


def waiting_in(region: Region, now: float | None = None) -> Record | None:
    """The region's attempt while it can still be approved, else None."""
    record = shown(region, now)
    return record if is_pending(record, now) else None


def mark_seen(region: Region) -> None:
    """The person saw how it ended: the record has nothing left to say and goes."""
    record = shown(region)
    if record is not None and record.state == ENDED:
        remove(region)
