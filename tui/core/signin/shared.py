"""The small interface between one attempt and the other terminals: what it publishes (the
record, under the region's lease) and what it learns of another terminal's attempt. The attempt
(`tui.core.signin.attempt`) calls only this; the files are `tui.core.signin.follow`'s."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace

from tui.core.signin import follow
from tui.core.signin.state import Outcome
from tui.core.slots.state import slot_status
from tui.core.spec.regions import Region


@dataclass(frozen=True)
class Progress:
    """What the attempt publishes at every change while it leads (clock values already wall time):
    the fields of a pending `Record`, by the same names."""

    device_code: str
    user_code: str
    verification_uri: str | None
    verification_uri_complete: str | None
    deadline: float
    ends_as: str
    interval: int
    last_poll: float | None
    polls: int
    slow_downs: int
    detached: bool


class Shared:
    """One region's attempt as the other terminals see it: the lease, the record, and why there
    is none when the files cannot be trusted."""

    def __init__(self, region: Region, account: str | None = None) -> None:
        self.region = region
        self.wanted = account  # the named account this terminal signs in to (None: the region's own)
        # the account of the attempt this process leads or follows: a follower's tokens go where
        # the attempt it joined was started for (the code on screen was shown for that one)
        self.account = account
        self.lease = follow.Lease(region)
        self.record: follow.Record | None = None  # ours while we lead; the leader's while we follow
        self.problem: str | None = None  # why this attempt cannot be followed from another terminal
        self.joined = follow.Joined(follow.Role.LEAD)
        self.following = ""  # the id of the leader's attempt a follower has seen
        self.stalled = False  # the leader showed no code in time: this process went on alone

    @property
    def leads(self) -> bool:
        """This process polls the attempt (it holds the lease, or no lease could be used)."""
        return self.lease.held or self.problem is not None

    def join(self) -> follow.Joined:
        """The one atomic step: lead (a new attempt, recorded at once), take over, or follow."""
        self.joined = joined = follow.join(self.lease)
        if joined.role is follow.Role.ALONE:
            self.problem = joined.problem
        elif joined.role is follow.Role.LEAD:
            self.record = follow.begin(self.region, joined.at, self.wanted)
        else:
            self.record = joined.record
            self.following = joined.record.attempt if joined.record else ""
            if joined.record is not None:
                self.account = joined.record.account
        return joined

    def go_alone(self) -> None:
        """Stop following a leader that shows no code: this process leads an attempt of its own,
        which is not recorded (the lease stays the leader's)."""
        self.lease.release()
        self.stalled = True
        self.problem = "the terminal that holds the lease has shown no code"

    def look(self) -> tuple[follow.Watch, follow.Record | None]:
        """A follower's next move, from the lease and the record as they are now."""
        taken = self.lease.try_take()
        record = follow.read(self.region)
        step = follow.watch_step(taken, record, self.joined, self.following)
        if step is follow.Watch.ENDED:
            self.lease.release()
        elif step is follow.Watch.START:
            follow.clear_discard(self.region)
            self.record = follow.begin(self.region, account=self.wanted)
            self.account = self.wanted
        elif record is not None and record.state != follow.ENDED:
            self.following = record.attempt or self.following
            self.record = record
            self.account = record.account
        return step, record

    def publish(self, progress: Progress) -> None:
        """The pending attempt on disk, for a second terminal and for a lost one."""
        if not self.lease.held:
            return
        base = self.record or follow.begin(self.region, account=self.account)
        self.record = replace(base, state=follow.PENDING, poller_pid=os.getpid(), **vars(progress))
        try:
            follow.write(self.record)
        except (OSError, follow.RecordProblem):
            pass  # the attempt goes on; only following it from another terminal is lost

    def end(self, outcome: Outcome, slot: str, *, seen: bool) -> None:
        """How it ended, without the device code, with who signed in to `slot` after success;
        then the lease goes."""
        try:
            identity = slot_status(slot).identity_claim if outcome.success else None
        except Exception:  # noqa: BLE001 - who signed in is a courtesy; the record must still end
            identity = None
        detail = (outcome.error or "").splitlines()[0] if outcome.error else None
        try:
            if self.record is not None:
                follow.write(self.record.ended(outcome.kind, identity, seen, detail))
        except (OSError, follow.RecordProblem):
            pass
        finally:
            follow.clear_discard(self.region)
            self.lease.release()

    def discard_requested(self) -> bool:
        return follow.discard_requested(self.region)

    def stop_watching(self) -> bool:
        """A follower cancels: only when the leader has lost its terminal is the attempt
        discarded (nobody else could). True when a discard was asked for."""
        if self.record is not None and self.record.detached:
            follow.request_discard(self.region)
            return True
        return False

    def started_clock(self) -> str:
        return self.record.started_clock() if self.record else time.strftime("%H:%M")
