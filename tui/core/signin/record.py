"""The record of one region's sign-in attempt, as written on disk and read back through one
typed reader: what a follower needs (the code, the deadline, the counts) while it is pending,
only how it ended once it has ended (no code stays on disk)."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tui.core.spec.keys import DEFAULT_ACCOUNT, account_slot, login_command, valid_account_name
from tui.core.spec.regions import Region
from tui.core.spec.settings import REGIONS
from tui.core.text.i18n import _

REQUESTING, PENDING, ENDED = "requesting", "pending", "ended"
STATES = (REQUESTING, PENDING, ENDED)
OUTCOMES = ("success", "access_denied", "expired", "timeout", "error", "discarded")


def _text(value: object, default: str | None = None) -> str | None:
    return value if isinstance(value, str) else default


def _number(value: object, default: float | None = None) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    number = float(value)
    return number if math.isfinite(number) else default


LATEST = 253402300799.0  # 9999-12-31T23:59:59Z: the last second a date on this platform can show
LONGEST = 3600.0  # seconds an attempt can wait for approval (the spec's budget is 15 minutes)


def _date(value: object, default: float | None = None) -> float | None:
    """A wall-clock time a record can hold: a finite number of seconds since 1970, before the
    year 10000 (`time.localtime` and `strftime` take it); anything else is dropped."""
    number = _number(value)
    return number if number is not None and 0 <= number <= LATEST else default


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31 else 0


@dataclass(frozen=True)
class Record:
    """One region's attempt as written on disk, read through one typed reader (`parse`): a field
    of the wrong type is dropped (its default is used), a record without a state, a region or a
    start it can be dated by is no record at all."""

    state: str
    region: Region
    started_at: float
    attempt: str = ""  # random id of the attempt: a follower knows the one it joined
    deadline: float = 0.0  # wall clock: when waiting for approval ends
    ends_as: str = "timeout"  # what the deadline means: "expired" (the code's life) or "timeout"
    device_code: str = field(default="", repr=False)  # a bearer secret until it expires
    user_code: str = ""
    verification_uri: str | None = None
    verification_uri_complete: str | None = None
    interval: int | None = None
    last_poll: float | None = None  # wall clock
    polls: int = 0
    slow_downs: int = 0
    poller_pid: int | None = None
    detached: bool = False
    outcome: str | None = None
    identity: str | None = None
    detail: str | None = None
    seen: bool = False
    ended_at: float | None = None
    account: str | None = None  # the named account its tokens go to (None: the region's own slot)
    polled: bool = True  # not on disk: a process holds its lease (`shown.shown` looks; its poller may be gone)

    @classmethod
    def parse(cls, data: object, region: Region | None = None) -> Record | None:
        """The record in `data`, read from the file of `region`: a record that names another
        region is none (its region is its file's region); every number is bounded to what a
        date, a count or an interval can be, else dropped (a date the record is dated by: the
        record is none)."""
        if not isinstance(data, Mapping):
            return None
        state, named, started = data.get("state"), data.get("region"), _date(data.get("started_at"))
        if state not in STATES or named not in REGIONS or started is None:
            return None
        if region is not None and named != region.value:
            return None
        account = data.get("account")
        if account is not None and (not valid_account_name(account) or account == DEFAULT_ACCOUNT):
            return None  # an attempt whose tokens would go to no account we can name: none
        deadline = _date(data.get("deadline"), 0.0) or 0.0
        interval = data.get("interval")
        record = cls(
            state=str(state),
            region=Region(named),
            started_at=started,
            attempt=_text(data.get("attempt"), "") or "",
            deadline=min(deadline, started + LONGEST),  # no attempt waits longer, whatever it says
            ends_as="expired" if data.get("ends_as") == "expired" else "timeout",
            device_code=_text(data.get("device_code"), "") or "",
            user_code=_text(data.get("user_code"), "") or "",
            verification_uri=_text(data.get("verification_uri")),
            verification_uri_complete=_text(data.get("verification_uri_complete")),
            interval=interval
            if isinstance(interval, int) and not isinstance(interval, bool) and 0 < interval < 3600
            else None,
            last_poll=_date(data.get("last_poll")),
            polls=_count(data.get("polls")),
            slow_downs=_count(data.get("slow_downs")),
            poller_pid=_count(data.get("poller_pid")) or None,
            detached=data.get("detached") is True,
            outcome=(data.get("outcome") if data.get("outcome") in OUTCOMES else "error") if state == ENDED else None,
            identity=_text(data.get("identity")),
            detail=_text(data.get("detail")),
            seen=data.get("seen") is True,
            ended_at=_date(data.get("ended_at")),
            account=account,
        )
        if state == PENDING and not (record.device_code and record.user_code):
            return None  # nothing that could be polled or shown: not a pending attempt
        return record

    def to_json(self) -> dict[str, Any]:
        """What is written: an ended record keeps no code, no address, no poller."""
        head = {
            "version": 2,
            "state": self.state,
            "region": self.region.value,
            "attempt": self.attempt,
            "started_at": self.started_at,
        }
        if self.account is not None:
            head["account"] = self.account
        if self.state == ENDED:
            return {
                **head,
                "ended_at": self.ended_at,
                "outcome": self.outcome,
                "identity": self.identity,
                "detail": self.detail,
                "seen": self.seen,
            }
        if self.state == REQUESTING:
            return {**head, "poller_pid": self.poller_pid}
        return {
            **head,
            "deadline": self.deadline,
            "ends_as": self.ends_as,
            "device_code": self.device_code,
            "user_code": self.user_code,
            "verification_uri": self.verification_uri,
            "verification_uri_complete": self.verification_uri_complete,
            "interval": self.interval,
            "last_poll": self.last_poll,
            "polls": self.polls,
            "slow_downs": self.slow_downs,
            "poller_pid": self.poller_pid,
            "detached": self.detached,
        }

    def is_live(self, now: float | None = None) -> bool:
        """An attempt that can still be approved: pending, before its deadline."""
        return self.state == PENDING and self.deadline > (time.time() if now is None else now)

    def ended(self, outcome: str, identity: str | None, seen: bool, detail: str | None = None) -> Record:
        """This attempt reduced to how it ended."""
        return Record(
            ENDED,
            self.region,
            self.started_at,
            self.attempt,
            outcome=outcome if outcome in OUTCOMES else "error",
            identity=identity,
            detail=detail,
            seen=seen,
            ended_at=float(int(time.time())),
            account=self.account,
        )

    def summary(self) -> dict[str, Any]:
        """For `status --json`: how an attempt without a terminal ended."""
        return {
            "started_at": self.started_at,
            "region": self.region.value,
            "account": self.account,
            "outcome": self.outcome,
            "identity": self.identity,
        }

    def started_clock(self) -> str:
        return time.strftime("%H:%M", time.localtime(self.started_at))

    def resume_command(self) -> str:
        """The `login` that picks this attempt up (follows it, or resumes it when nobody polls)."""
        return login_command(account_slot(self.region, self.account or DEFAULT_ACCOUNT))

    def left_behind(self) -> Record:
        """A pending attempt past its deadline whose poller is gone, as the ended one it is: an
        approval nobody polled for is saved nowhere."""
        last = time.strftime("%H:%M", time.localtime(self.last_poll or self.started_at))
        detail = _("nobody polled it after {time} (its process ended), so nothing was saved").format(time=last)
        return self.ended("error", None, seen=False, detail=detail)
