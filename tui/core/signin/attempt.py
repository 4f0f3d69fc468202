"""One device sign-in attempt (spec 3), as a state machine both faces draw.

The attempt's state is one value, `SignIn.phase` (a `Phase`); `TRANSITIONS` lists every allowed
move and `SignIn._to` refuses any other. What a face shows is data of the attempt: the code and
its addresses, one deadline (the code's own lifetime, within the spec's 15 minutes), the
interval, the polls and slow-downs, the outcome, and what was written. `login --no-tui` prints it
line by line; the wizard draws it. Neither keeps counters or flags of its own.

    NEW ──join──> REQUESTING ──code──> WAITING <──> POLLING ──approved──> SAVING ──> ENDED
     │                                   ▲  │          │                              │
     └──> WATCHING (another terminal     │  └──────────┴──── expired, denied, error ──┤
          polls; its record is followed) ┘ take over                                 │
                                                  keep polling after trouble <───────┘

Joining is atomic (`tui.core.signin.follow.join`): whoever takes the region's lease requests the
code; everyone else follows the lease holder's record and reports the same outcome. The protocol
(`tui.core.signin.protocol`) returns tokens; this attempt saves them (`store.save_signin`) in
its SAVING phase. When the terminal goes away (`detach`), the attempt carries on by itself
(`carry_on`): same code, transient errors retried until the deadline, the approved tokens saved
as an attended sign-in saves them (the wait for the slot's locks bounded to 10 minutes), then
the record says how it ended, for "while you were away…".

A face learns of changes through `on_change(event)`, called on the event loop that runs the
attempt, with one of the `EVENTS`.
"""

from __future__ import annotations

import asyncio
import enum
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from tui.core.config.read import exposure
from tui.core.errors import AuthError
from tui.core.humantime import clock, plural
from tui.core.locks import reporting_to
from tui.core.paths import config_path, credentials_path
from tui.core.regions import Region, endpoints
from tui.core.signin import follow
from tui.core.signin.protocol import (
    POLL_BUDGET,
    DeviceAuthorization,
    PollResult,
    PollStatus,
    poll_for_tokens,
    start_device_authorization,
)
from tui.core.signin.store import save_signin, slot_of
from tui.core.slots.state import signed_in_as, slot_status

EVENTS = ("following", "code", "poll", "slow_down", "saving", "finished")
MINUTES = POLL_BUDGET // 60


class Phase(enum.Enum):
    NEW = "new"  # nothing done yet
    REQUESTING = "requesting"  # we hold the lease; the device authorization is in flight
    WAITING = "waiting"  # the code is shown; no request in flight (between polls)
    POLLING = "polling"  # a token poll is in flight
    SAVING = "saving"  # approved: the tokens are being saved (perhaps waiting for the slot's locks)
    WATCHING = "watching"  # another process holds the lease: its record is followed
    ENDED = "ended"  # `outcome` says how


TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    Phase.NEW: frozenset({Phase.REQUESTING, Phase.WAITING, Phase.WATCHING}),
    Phase.REQUESTING: frozenset({Phase.WAITING, Phase.ENDED}),
    Phase.WAITING: frozenset({Phase.POLLING, Phase.ENDED}),
    Phase.POLLING: frozenset({Phase.WAITING, Phase.SAVING, Phase.ENDED}),
    Phase.SAVING: frozenset({Phase.ENDED}),
    Phase.WATCHING: frozenset({Phase.REQUESTING, Phase.WAITING, Phase.ENDED}),
    Phase.ENDED: frozenset({Phase.WAITING}),  # keep polling the same code after network trouble
}


class InvalidTransition(RuntimeError):
    """A move `TRANSITIONS` does not allow: a bug, never a person's doing."""


@dataclass(frozen=True)
class Outcome:
    """How an attempt ended: `kind` is a terminal poll status, "error" or "discarded"."""

    kind: str
    title: str
    text: str
    error: str | None = None  # AuthError.describe() when kind == "error"
    transient: bool = False  # the error was network or server trouble: the same code may still work

    @property
    def success(self) -> bool:
        return self.kind == "success"


_OUTCOMES = {
    "success": ("Signed in", "The sign-in was approved and saved."),
    "expired": ("The code expired", "The code was not approved in time; a new sign-in gets a new code."),
    "timeout": ("Gave up waiting", f"No approval within {MINUTES} minutes; a new sign-in gets a new code."),
    "access_denied": ("Access denied", "The request was denied in the browser. Try again if that was a mistake."),
    "error": ("Sign-in failed", "The sign-in stopped with this error:"),
    "discarded": ("Sign-in discarded", "The sign-in was discarded in another terminal; nothing was saved."),
}


def outcome_for(kind: str, error: str | None = None, transient: bool = False) -> Outcome:
    kind = kind if kind in _OUTCOMES else "error"
    title, text = _OUTCOMES[kind]
    return Outcome(kind, title, text, error, transient)


class _Discarded(Exception):
    """Raised inside the poll loop when a watching terminal asked to discard the attempt."""


class SignIn:
    """A sign-in attempt in `region`. `await attempt.run()` joins the region (leads or follows)
    and goes to the end; `poll()` keeps polling the same code after network trouble. Read its
    state at any time."""

    BACK_OFF = 3.0  # seconds before polling again by itself after network or server trouble
    LOCK_WAIT_DETACHED = 600.0  # seconds approved tokens wait for the slot's locks without a terminal
    WATCH_EVERY = 0.5  # seconds between looks at the record while another process polls

    def __init__(
        self,
        region: Region,
        *,
        client: object | None = None,
        on_change: Callable[[str], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        detachable: bool | None = None,
    ) -> None:
        self.region = region
        self.host = endpoints(region).oauth_host
        self.storage_name = slot_of(region)  # the slot this attempt writes, worked out once
        self.client = client
        self.on_change = on_change
        self.clock = clock
        self.sleep = sleep
        # a lost terminal lets the attempt carry on by itself; never for a caller that drives the
        # HTTP client itself (tests, library callers), nor in the demo (the face says so)
        self.detachable = client is None if detachable is None else detachable
        self.phase = Phase.NEW
        self.auth: DeviceAuthorization | None = None
        self.deadline = 0.0  # on `clock`: when waiting ends (the code's lifetime, within the spec's budget)
        self.ends_as = "timeout"  # what reaching the deadline means: "expired" when the code's lifetime set it
        self.interval = 0
        self.polls = 0
        self.slow_downs = 0
        self.last_poll: float | None = None  # on `clock`, when the server last answered a poll
        self.continued = 0  # polls started again with the same code after an error
        self.lock_wait: str | None = None  # "Waiting for …" while approved tokens wait for the slot
        self.outcome: Outcome | None = None
        self.written: dict[str, str] = {}  # "credentials" / "config" -> path, after success
        self.config_note: str | None = None  # after success: config.toml is exposed, and the fix
        self.lease = follow.Lease(region)
        self.record: follow.Record | None = None  # ours while we lead; the leader's while we watch
        self.record_problem: str | None = None  # why this attempt cannot be followed elsewhere
        self.started_here = False  # this process requested the code (else it follows another's attempt)
        self.detached = False  # the terminal went away: nobody to show or ask (not a phase: a fact of the face)
        self.identity: str | None = None  # for a follower, who the leader signed in as
        self.approved: dict | None = None  # the tokens of an approval, until they are saved
        self._saving: asyncio.Future | None = None
        self._rebound = False  # the save was cancelled by `detach` to restart it with a bound
        self._on_idle: Callable[[], object] | None = None
        self._joined = follow.Joined(follow.Role.LEAD)  # how this process joined the region
        self._following = ""  # the id of the attempt a follower has seen

    # -- the state -----------------------------------------------------------------------------
    def _to(self, phase: Phase) -> None:
        if phase not in TRANSITIONS[self.phase]:
            raise InvalidTransition(f"{self.phase.value} -> {phase.value}")
        self.phase = phase

    @property
    def watching(self) -> bool:
        return self.phase is Phase.WATCHING

    @property
    def leads(self) -> bool:
        """This process polls the attempt (it holds the region's lease, or no lease could be used)."""
        return self.lease.held or self.record_problem is not None

    @property
    def saving(self) -> bool:
        return self.phase is Phase.SAVING

    # -- what the faces show ---------------------------------------------------------------
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
        return (
            f"polling every {self.interval} s · {plural(self.polls, 'poll')} answered · "
            f"{plural(self.slow_downs, 'slow-down')}"
        )

    def started_clock(self) -> str:
        """ "14:02": when the attempt was started (in whichever terminal)."""
        return self.record.started_clock() if self.record else time.strftime("%H:%M")

    def _changed(self, event: str) -> None:
        if self.on_change is not None:
            self.on_change(event)

    # -- running -------------------------------------------------------------------------------
    async def run(self) -> Outcome:
        """Join the region and go on to the end: request a code (we lead), poll a live attempt
        whose poller is gone (take over), or follow the one another terminal polls."""
        self._join()
        while True:
            if self.phase is Phase.REQUESTING:
                if not await self._request():
                    return self._ended()
                return await self.poll()
            if self.phase is Phase.WATCHING:
                await self._watch()
                continue
            if self.phase is Phase.WAITING:
                return await self.poll()
            return self._ended()

    async def request_code(self) -> DeviceAuthorization:
        """Lead a new attempt and request its code (spec 3.1); AuthError as the spec says, or when
        another terminal leads this region's attempt."""
        self._join()
        if self.phase is not Phase.REQUESTING or not await self._request():
            raise AuthError((self.outcome.error if self.outcome else None) or "A sign-in is already under way in another terminal")
        assert self.auth is not None
        return self.auth

    def _join(self) -> None:
        joined = follow.join(self.lease)
        if joined.role is follow.Role.ALONE:
            self.record_problem = joined.problem
        if joined.role in (follow.Role.LEAD, follow.Role.ALONE):
            self._to(Phase.REQUESTING)
            if joined.role is follow.Role.LEAD:
                self.record = follow.begin(self.region, joined.at)
            return
        self._joined = joined
        self._following = joined.record.attempt if joined.record else ""
        if joined.role is follow.Role.TAKE_OVER:
            self._to(Phase.WAITING)
            self._take_over(joined.record)
            return
        self._to(Phase.WATCHING)
        self._changed("following")
        if joined.record is not None and joined.record.state == follow.PENDING:
            self._absorb(joined.record, code=True)

    async def _request(self) -> bool:
        """REQUESTING -> WAITING with the code, or ENDED with the error (the record says so)."""
        try:
            auth = await start_device_authorization(self.region, client=self.client)
        except AuthError as exc:
            self._finish(outcome_for("error", exc.describe(), exc.transient))
            return False
        except asyncio.CancelledError:  # Ctrl+C, SIGTERM, Esc before the code arrived
            self._finish(outcome_for("discarded"), notify=False)
            raise
        self.auth = auth
        self.started_here = True
        self.deadline = self.clock() + auth.time_budget
        self.ends_as = "expired" if auth.expires_in is not None and 0 < auth.expires_in <= POLL_BUDGET else "timeout"
        self.interval = max(auth.poll_interval, 1)
        self._to(Phase.WAITING)
        self._record()
        self._changed("code")
        return True

    async def poll(self) -> Outcome:
        """Spec 3.2 with the code already requested, until the attempt's one deadline. Calling it
        again after an error keeps polling with the same device code, no sooner than one interval
        after the last poll."""
        if self.auth is None:
            raise RuntimeError("no code to poll yet")
        if self.phase is Phase.ENDED:
            self.continued += 1
            self.outcome = None
            self._to(Phase.WAITING)
        first_delay = 0.0 if self.last_poll is None else max(self.last_poll + self.interval - self.clock(), 0.0)
        try:
            result = await poll_for_tokens(
                self.auth.device_code,
                self.interval,
                self.region,
                client=self.client,
                on_status=self._on_status,
                on_request=self._polling,
                clock=self.clock,
                sleep=self._between_polls,
                deadline=self.deadline,
                first_delay=first_delay,
            )
            if result.tokens is not None:
                await self._save(result.tokens)
        except AuthError as exc:
            if exc.transient and self.detached and self.seconds_left() <= self.interval:
                return self._finish(outcome_for(self.ends_as))  # nobody to ask, no time for another poll
            return self._finish(outcome_for("error", exc.describe(), exc.transient))
        except _Discarded:
            return self._finish(outcome_for("discarded"))
        except asyncio.CancelledError:
            if not self.detached:  # Esc, Ctrl+C, SIGTERM: the attempt is discarded
                self._finish(outcome_for("discarded"), notify=False)
            raise
        return self._finish(outcome_for(self._kind(result)))

    def _kind(self, result: PollResult) -> str:
        """A poll loop's end as an outcome: reaching the deadline is "expired" when it was the
        code's own lifetime."""
        return self.ends_as if result.status.status == "timeout" else result.status.status

    async def carry_on(self) -> Outcome:
        """To the end without a terminal: save tokens already approved, else keep polling the
        same code (retrying network or server trouble after the back-off, until the deadline)."""
        self.detached = True
        if self.approved is not None and self.phase is Phase.SAVING:
            try:
                await self._save(self.approved)
            except AuthError as exc:
                return self._finish(outcome_for("error", exc.describe()))
            return self._finish(outcome_for("success"))
        outcome = self.outcome if self.phase is Phase.ENDED and self.outcome else await self.poll()
        while self.can_keep_polling:
            await self.sleep(self.BACK_OFF)
            outcome = await self.poll()
        return outcome

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
            and self.leads
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
        return f"{first}\nNetwork or server trouble: polling again with the same code in {self.BACK_OFF:g} s…"

    # -- following another terminal's attempt -------------------------------------------------
    def _take_over(self, record: follow.Record | None) -> None:
        """The lease is ours and `record` is live: poll its code ourselves, within its deadline."""
        assert record is not None
        self._absorb(record, code=False)
        self.record = record
        self._record()
        self._changed("following")
        self._changed("code")

    def _absorb(self, record: follow.Record, *, code: bool) -> None:
        """Take the code, deadline (wall clock), interval and counts from the record."""
        now, mono = time.time(), self.clock()
        first = self.auth is None
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
        self.record = record
        if first and code:
            self._changed("code")

    async def _watch(self) -> None:
        """WATCHING until the leader's attempt ends, or the lease is ours (take over / start)."""
        joined = self._joined
        while True:
            taken = self.lease.try_take()
            record = follow.read(self.region)
            step = follow.watch_step(taken, record, joined, self._following)
            if step is follow.Watch.ENDED:
                self.lease.release()
                assert record is not None
                self._from_ended(record)
                return
            if step is follow.Watch.TAKE_OVER:
                self._to(Phase.WAITING)
                self._take_over(record)
                return
            if step is follow.Watch.START:
                follow.clear_discard(self.region)
                self.record = follow.begin(self.region)
                self._to(Phase.REQUESTING)
                return
            if record is not None and record.state != follow.ENDED:
                self._following = record.attempt or self._following
                if record.state == follow.PENDING:
                    before = (self.polls, self.interval, self.slow_downs, self.auth is None)
                    self._absorb(record, code=True)
                    if (self.polls, self.interval, self.slow_downs, False) != before:
                        self._changed("slow_down" if self.slow_downs != before[2] else "poll")
            await self.sleep(self.WATCH_EVERY)

    def stop_watching(self) -> bool:
        """A watching terminal cancels: it only stops watching, unless the poller has lost its
        terminal, in which case the attempt is discarded. True when a discard was asked for."""
        if self.watching and self.record is not None and self.record.detached:
            follow.request_discard(self.region)
            return True
        return False

    def give_up(self) -> None:
        """The person declined to keep polling after an error: the attempt ends here."""
        if self.phase is Phase.ENDED and self.outcome is not None and self.lease.held:
            self._end_record(self.outcome)

    def _from_ended(self, record: follow.Record) -> Outcome:
        self.identity = record.identity
        return self._finish(outcome_for(record.outcome or "discarded", record.detail), record_it=False)

    # -- a lost terminal -------------------------------------------------------------------
    def detach(self) -> bool:
        """The terminal went away: carry on without one (only a poller that has shown its code,
        and only when detachable). Approved tokens waiting for the slot's locks now wait at most
        `LOCK_WAIT_DETACHED`. False when the attempt cannot carry on (the face ends as before)."""
        if not self.detachable or self.phase not in (Phase.WAITING, Phase.POLLING, Phase.SAVING) or not self.leads:
            return False
        self.detached = True
        self.on_change = None  # nobody to tell
        self._record()
        if self._saving is not None and not self._saving.done():
            self._rebound = True  # the unbounded wait gets the bound: restarted with it
            self._saving.cancel()
        return True

    def when_idle(self, callback: Callable[[], object]) -> None:
        """Call `callback` as soon as no poll is in flight (now, if the attempt sleeps between
        polls or its approved tokens wait for the slot's locks): a face that must stop its event
        loop never drops a server's answer (an approval consumes the device code)."""
        if self.phase in (Phase.WAITING, Phase.SAVING, Phase.ENDED):
            callback()
        else:
            self._on_idle = callback

    def _polling(self) -> None:
        self._to(Phase.POLLING)

    async def _between_polls(self, seconds: float) -> None:
        if self.phase is not Phase.WAITING:
            self._to(Phase.WAITING)
        if self._on_idle is not None:
            callback, self._on_idle = self._on_idle, None
            callback()
        await self.sleep(seconds)

    # -- callbacks of the protocol -------------------------------------------------------------
    def _on_status(self, status: PollStatus) -> None:
        self.polls += 1
        self.last_poll = self.clock()
        if status.interval:
            self.interval = status.interval
        if status.status == "slow_down":
            self.slow_downs += 1
        self._record()
        if follow.discard_requested(self.region):
            raise _Discarded
        self._changed(status.status if status.status == "slow_down" else "poll")

    def _waiting_for_lock(self, text: str) -> None:
        self.lock_wait = text
        self._changed("saving")

    async def _save(self, tokens: dict) -> str:
        """POLLING -> SAVING: spec 4.4 through the one home of saving; the tokens are kept until
        saved, and a lost terminal turns an unbounded wait for the locks into a bounded one."""
        if self.phase is not Phase.SAVING:
            self._to(Phase.SAVING)
        self.approved = dict(tokens)
        with reporting_to(self._waiting_for_lock):
            while True:
                bound = self.LOCK_WAIT_DETACHED if self.detached else None
                self._saving = asyncio.ensure_future(save_signin(tokens, self.region, timeout=bound))
                try:
                    name = await self._saving
                except asyncio.CancelledError:
                    if self._rebound:
                        self._rebound = False
                        continue
                    raise
                except AuthError as exc:
                    if self.detached and exc.message.startswith("Gave up after"):
                        raise AuthError(f"approved but could not be saved: the slot was locked ({exc.message})") from None
                    raise
                break
        self.approved = None
        self.written = {"credentials": str(credentials_path(self.storage_name)), "config": str(config_path())}
        self.config_note = exposure()  # config.toml others can read or write: said, with the fix
        return name

    def _finish(self, outcome: Outcome, *, record_it: bool = True, notify: bool = True) -> Outcome:
        self._to(Phase.ENDED)
        self.outcome = outcome
        if self._on_idle is not None:  # nothing is in flight any more
            callback, self._on_idle = self._on_idle, None
            callback()
        if record_it and self.lease.held and not self.can_keep_polling:  # else the same code may still be polled
            self._end_record(outcome)
        if notify:
            self._changed("finished")
        return outcome

    def _ended(self) -> Outcome:
        assert self.outcome is not None
        return self.outcome

    # -- the record ------------------------------------------------------------------------
    def _record(self) -> None:
        """The pending attempt on disk, for a second terminal and for a lost one."""
        if not self.lease.held or self.auth is None:
            return
        now = time.time()
        base = self.record or follow.begin(self.region, now)
        self.record = follow.Record(
            follow.PENDING, self.region, base.started_at, base.attempt,
            deadline=now + (self.deadline - self.clock()),
            ends_as=self.ends_as,
            device_code=self.auth.device_code,
            user_code=self.auth.user_code,
            verification_uri=self.auth.verification_uri,
            verification_uri_complete=self.auth.verification_uri_complete,
            interval=self.interval,
            last_poll=None if self.last_poll is None else now - (self.clock() - self.last_poll),
            polls=self.polls,
            slow_downs=self.slow_downs,
            poller_pid=os.getpid(),
            detached=self.detached,
        )
        try:
            follow.write(self.record)
        except (OSError, follow.RecordProblem):
            pass  # the attempt goes on; only following it from another terminal is lost

    def _end_record(self, outcome: Outcome) -> None:
        """How it ended, without the device code; "seen" when a terminal shows it now."""
        identity = slot_status(self.storage_name).identity_claim if outcome.success else None
        detail = (outcome.error or "").splitlines()[0] if outcome.error else None
        try:
            if self.record is not None:
                follow.write(self.record.ended(outcome.kind, identity, not self.detached, detail))
        except (OSError, follow.RecordProblem):
            pass
        finally:
            follow.clear_discard(self.region)
            self.lease.release()

    def who(self) -> str:
        """ "Signed in as user-1 · cn" after success (the token's claims, not verified)."""
        return signed_in_as(slot_status(self.storage_name))
