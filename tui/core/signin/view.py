"""What the faces show of an attempt, derived from its data: the code and its addresses, what is
left of its one deadline, its polling figures. `SignIn` is one; nothing here does I/O."""

from __future__ import annotations

import time
from collections.abc import Callable

from tui.core.signin.protocol import POLL_BUDGET, DeviceAuthorization, PollStatus
from tui.core.signin.record import Record
from tui.core.signin.shared import Progress, Shared
from tui.core.signin.state import Outcome, Phase
from tui.core.spec.regions import Region
from tui.core.text.humantime import clock
from tui.core.text.i18n import _, ngettext


class AttemptView:
    """An attempt's state and data as the faces read them; `SignIn` alone changes them."""

    BACK_OFF = 3.0  # seconds before polling again by itself after network or server trouble

    def __init__(self, region: Region, clock: Callable[[], float], shared: Shared) -> None:
        self.region = region
        self.clock = clock
        self.shared = shared  # the attempt as other terminals see it (the lease, the record)
        self.auth: DeviceAuthorization | None = None
        self.deadline = 0.0  # on `clock`: when waiting ends (the code's lifetime, within the spec's budget)
        self.ends_as = "timeout"  # what reaching the deadline means: "expired" when the code's lifetime set it
        self.interval = 0
        self.polls = 0
        self.slow_downs = 0
        self.last_poll: float | None = None  # on `clock`, when the server last answered a poll
        self.phase = Phase.NEW  # moved by `SignIn` along `TRANSITIONS` only
        self.outcome: Outcome | None = None  # once ENDED
        self.continued = 0  # polls started again with the same code after an error
        self.lock_wait: str | None = None  # "Waiting for …" while approved tokens wait for the slot
        self.config_note: str | None = None  # after success: config.toml is exposed, and the fix
        self.started_here = False  # this process requested the code (else it follows another's attempt)
        self.detached = False  # the terminal went away: nobody to show or ask (a fact of the face, not a phase)

    @property
    def watching(self) -> bool:
        return self.phase is Phase.WATCHING

    @property
    def saving(self) -> bool:
        return self.phase is Phase.SAVING

    @property
    def user_code(self) -> str | None:
        return self.auth.user_code if self.auth else None

    @property
    def address(self) -> str | None:
        """The address to type the code at (shown as text): the plain one, else the complete one."""
        if self.auth is None:
            return None
        return self.auth.verification_uri or self.auth.verification_uri_complete

    @property
    def complete_address(self) -> str | None:
        """The address with the code filled in, when the server sent one."""
        return self.auth.verification_uri_complete if self.auth else None

    @property
    def open_target(self) -> str | None:
        """What a browser (or a QR code) gets: the complete address when there is one."""
        return self.complete_address or self.address

    def seconds_left(self) -> float:
        return max(self.deadline - self.clock(), 0.0) if self.auth else 0.0

    def countdown(self) -> str:
        return clock(self.seconds_left())

    def stats(self) -> str:
        return _("polling every {interval} s · {polls} answered · {slow_downs}").format(
            interval=self.interval,
            polls=ngettext("{n} poll", "{n} polls", self.polls).format(n=self.polls),
            slow_downs=ngettext("{n} slow-down", "{n} slow-downs", self.slow_downs).format(n=self.slow_downs),
        )

    @property
    def can_keep_polling(self) -> bool:
        """After network or server trouble while polling, the same code may still be approved
        before the deadline: `poll()` again keeps polling with it."""
        return (
            self.phase is Phase.ENDED
            and self.outcome is not None
            and self.outcome.kind == "error"
            and self.outcome.transient
            and self.auth is not None
            and self.shared.leads
            and self.seconds_left() > self.interval
        )

    @property
    def retries_by_itself(self) -> bool:
        """The first network or server trouble is polled through again without asking, after
        `BACK_OFF` seconds (every one, without a terminal); after that a face asks the person."""
        return self.can_keep_polling and (self.continued == 0 or self.detached)

    def retry_notice(self) -> str:
        """What a face says while it waits to poll again by itself."""
        first = (self.outcome.error or "").splitlines()[0] if self.outcome and self.outcome.error else ""
        again = _("Network or server trouble: polling again with the same code in {seconds} s…")
        return f"{first}\n" + again.format(seconds=f"{self.BACK_OFF:g}")

    def took(self, auth: DeviceAuthorization) -> None:
        """The code this process requested: one deadline (the code's own lifetime, within the
        spec's budget) and the interval."""
        self.auth = auth
        self.started_here = True
        self.deadline = self.clock() + auth.time_budget
        self.ends_as = "expired" if auth.expires_in is not None and 0 < auth.expires_in <= POLL_BUDGET else "timeout"
        self.interval = max(auth.poll_interval, 1)

    def answered(self, status: PollStatus) -> str:
        """Count a poll the server answered; the event a face is told of ("poll" or "slow_down")."""
        self.polls += 1
        self.last_poll = self.clock()
        if status.interval:
            self.interval = status.interval
        if status.status == "slow_down":
            self.slow_downs += 1
            return "slow_down"
        return "poll"

    def wall(self, on_clock: float) -> float:
        """A time on `clock` as wall-clock seconds (what records keep)."""
        return time.time() + (on_clock - self.clock())

    def absorb(self, record: Record) -> str | None:
        """Take the code, deadline (wall clock), interval and counts from another terminal's
        record; the event a face is told of: "code" the first time, then "slow_down" or "poll"
        when the figures moved, else None."""
        now, mono = time.time(), self.clock()
        first = self.auth is None
        before = (self.polls, self.interval, self.slow_downs)
        if first:
            self.auth = DeviceAuthorization(
                user_code=record.user_code,
                device_code=record.device_code,
                verification_uri=record.verification_uri,
                verification_uri_complete=record.verification_uri_complete,
                interval=record.interval,
            )
            self.deadline = mono + (record.deadline - now)
            self.ends_as = record.ends_as
        self.interval = max(record.interval or self.interval or 1, 1)
        self.polls, self.slow_downs = record.polls, record.slow_downs
        if record.last_poll is not None:
            self.last_poll = mono - (now - record.last_poll)
        if first:
            return "code"
        if (self.polls, self.interval, self.slow_downs) != before:
            return "slow_down" if self.slow_downs != before[2] else "poll"
        return None

    def progress(self, detached: bool) -> Progress | None:
        """What this attempt publishes for other terminals (its clock values as wall time)."""
        if self.auth is None:
            return None
        return Progress(
            self.auth.device_code,
            self.auth.user_code,
            self.auth.verification_uri,
            self.auth.verification_uri_complete,
            self.wall(self.deadline),
            self.ends_as,
            self.interval,
            None if self.last_poll is None else self.wall(self.last_poll),
            self.polls,
            self.slow_downs,
            detached,
        )
