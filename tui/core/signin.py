"""One device sign-in attempt (spec 3), owned by a UI-free object both faces render.

`SignIn` requests the code, runs `poll_device_token` and keeps everything a face shows: the
code and the addresses, the deadline and what is left of it, the interval, the polls and
slow-downs, the outcome with its text, and what was written. The command line's
`login --no-tui` prints it line by line; the wizard draws it. Neither keeps its own counters.

The attempt also lives on disk (`tui.core.pending`), so that it outlives its terminal:

- the process that polls holds the attempt's lease and records every poll; a second terminal
  that asks for the same region follows the record (`follow`) and takes the lease over when
  the poller dies, polling no sooner than one interval after the last poll, within the original
  deadline;
- when the terminal goes away (`detach`), the attempt carries on by itself (`carry_on`): same
  device code and interval, transient errors retried until the deadline without asking, the
  approved tokens saved exactly as an attended sign-in saves them (the wait for the slot's locks
  bounded to 10 minutes), then the record says how it ended, for "while you were away…";
- cancelling discards: the record says so, and a watching terminal says "discarded in another
  terminal".

A face learns of changes through `on_change(event)`, called on the event loop that runs the
attempt, with one of the `EVENTS`.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from tui.core import pending
from tui.core.config.read import exposure
from tui.core.device_flow import (
    POLL_BUDGET,
    DeviceAuthorization,
    PollStatus,
    poll_device_token,
    start_device_authorization,
)
from tui.core.errors import AuthError
from tui.core.humantime import clock, plural
from tui.core.locks import reporting_to
from tui.core.paths import config_path, credentials_path
from tui.core.regions import Region, endpoints, parse_region
from tui.core.signin_store import save_signin, slot_of
from tui.core.slots.state import signed_in_as, slot_status

EVENTS = ("code", "poll", "slow_down", "saving", "finished")
MINUTES = POLL_BUDGET // 60
BUSY = "A sign-in in {region} is already waiting for approval in another terminal"


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
    """A sign-in attempt in `region`. Run it with `await attempt.run()` (or `request_code()`
    then `poll()`), or follow a recorded one with `follow()`; read its state at any time."""

    BACK_OFF = 3.0  # seconds before polling again by itself after network or server trouble
    LOCK_WAIT_DETACHED = 600.0  # seconds approved tokens wait for the slot's locks without a terminal
    WATCH_EVERY = 0.5  # seconds between looks at the record while another process polls

    def __init__(
        self,
        region: Region | str | None = None,
        *,
        client: object | None = None,
        on_change: Callable[[str], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        detachable: bool | None = None,
    ) -> None:
        self.region = parse_region(region.value if isinstance(region, Region) else region)
        self.host = endpoints(self.region).oauth_host
        self.storage_name = slot_of(self.region)  # the slot this attempt writes, worked out once
        self.client = client
        self.on_change = on_change
        self.clock = clock
        self.sleep = sleep
        # a lost terminal lets the attempt carry on by itself; never for a caller that drives the
        # HTTP client itself (tests, library callers), nor in the demo (the face says so)
        self.detachable = client is None if detachable is None else detachable
        self.phase = "requesting"  # requesting | waiting | saving | finished
        self.auth: DeviceAuthorization | None = None
        self.deadline = 0.0  # when the code expires (its lifetime, within the spec's budget)
        self.poll_deadline: float | None = None  # the spec's 15-minute budget, from the first poll
        self.started_at: float | None = None  # wall clock, when the code was issued
        self.deadline_at: float | None = None  # wall clock, the end of the attempt (recorded)
        self.interval = 0
        self.polls = 0
        self.slow_downs = 0
        self.last_poll: float | None = None  # on `clock`, when the server last answered a poll
        self.continued = 0  # polls started again with the same code after an error
        self.lock_wait: str | None = None  # "Waiting for …" while approved tokens wait for the slot
        self.outcome: Outcome | None = None
        self.written: dict[str, str] = {}  # "credentials" / "config" -> path, after success
        self.config_note: str | None = None  # after success: config.toml is exposed, and the fix
        self.lease = pending.Lease(self.region.value)
        self.role: str | None = None  # "poller" (holds the lease) or "watcher" (follows the record)
        self.detached = False  # the terminal went away: nobody to show or ask
        self.poller_detached = False  # for a watcher: the poller has lost its terminal
        self.identity: str | None = None  # for a watcher, who the poller signed in as
        self.approved: dict | None = None  # the tokens of an approval, until they are saved
        self._saving: asyncio.Future | None = None
        self._rebound = False
        self._idle = False  # between polls: no request in flight, no answer to lose
        self._on_idle: Callable[[], object] | None = None

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

    # -- running ---------------------------------------------------------------------------
    def _changed(self, event: str) -> None:
        if self.on_change is not None:
            self.on_change(event)

    async def request_code(self) -> DeviceAuthorization:
        """Spec 3.1. AuthError as the spec says; the attempt is then finished with an error. The
        attempt's lease is taken first: one region, one poller."""
        if not self.lease.try_take():
            exc = AuthError(BUSY.format(region=self.region.value),
                            "Run `assistant-auth login` to follow it, or `assistant-auth login --new` to abandon it.")
            self._finish(outcome_for("error", exc.describe()))
            raise exc
        self.role = "poller"
        pending.clear_discard(self.region.value)  # a request for an earlier attempt, now ended
        try:
            auth = await start_device_authorization(self.region, client=self.client)
        except AuthError as exc:
            self._finish(outcome_for("error", exc.describe()))
            raise
        self.auth = auth
        self.deadline = self.clock() + auth.time_budget
        self.started_at = time.time()
        self.deadline_at = self.started_at + auth.time_budget
        self.interval = max(auth.poll_interval, 1)
        self.phase = "waiting"
        self._record()
        self._changed("code")
        return auth

    async def poll(self) -> Outcome:
        """Spec 3.2 with the code already requested, within this attempt's deadline. Calling it
        again after an error keeps polling with the same device code, no sooner than one interval
        after the last poll."""
        if self.auth is None:
            raise RuntimeError("request_code() first")
        if self.outcome is not None:
            self.continued += 1
        self.phase, self.outcome = "waiting", None
        if self.poll_deadline is None:
            self.poll_deadline = self.clock() + POLL_BUDGET  # what poll_device_token does by itself
        first_delay = 0.0 if self.last_poll is None else max(self.last_poll + self.interval - self.clock(), 0.0)
        try:
            with reporting_to(self._waiting_for_lock):
                status = await poll_device_token(
                    self.auth.device_code,
                    self.interval,
                    self.region,
                    client=self.client,
                    on_status=self._on_status,
                    clock=self.clock,
                    sleep=self._between_polls,
                    deadline=self.poll_deadline,
                    first_delay=first_delay,
                    save=self._save,
                )
        except AuthError as exc:
            return self._finish(outcome_for("error", exc.describe(), exc.transient))
        except _Discarded:
            return self._finish(outcome_for("discarded"))
        except asyncio.CancelledError:
            if not self.detached:  # Esc, Ctrl+C, SIGTERM: the attempt is discarded
                self._finish(outcome_for("discarded"), notify=False)
            raise
        if status.status == "success":
            self._record_written()
        return self._finish(outcome_for(status.status))

    async def run(self) -> Outcome:
        try:
            await self.request_code()
        except AuthError:
            return self.outcome  # type: ignore[return-value]
        return await self.poll()

    async def carry_on(self) -> Outcome:
        """To the end without a terminal: save tokens already approved, else keep polling the
        same code (retrying network or server trouble after the back-off, until the deadline)."""
        self.detached = True
        if self.approved is not None and self.outcome is None:
            try:
                await self._save(self.approved, self.region)
            except AuthError as exc:
                return self._finish(outcome_for("error", exc.describe()))
            self._record_written()
            return self._finish(outcome_for("success"))
        outcome = self.outcome if self.phase == "finished" and self.outcome else await self.poll()
        while self.can_keep_polling:
            await self.sleep(self.BACK_OFF)
            outcome = await self.poll()
        return outcome

    @property
    def can_keep_polling(self) -> bool:
        """After network or server trouble while polling, the same code may still be approved
        before the deadline: `poll()` again keeps polling with it."""
        return (
            self.outcome is not None
            and self.outcome.kind == "error"
            and self.outcome.transient
            and self.auth is not None
            and self.role == "poller"
            and self.poll_deadline is not None
            and self.poll_deadline - self.clock() > self.interval
            and self.seconds_left() > 0
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

    # -- another terminal's attempt --------------------------------------------------------
    @classmethod
    def from_record(cls, record: dict, **kwargs) -> SignIn:
        """An attempt recorded by another process (or by this one before its terminal went): the
        same code, deadline (wall clock), interval and counts."""
        attempt = cls(record.get("region"), **kwargs)
        attempt.auth = DeviceAuthorization(
            user_code=str(record.get("user_code", "")),
            device_code=str(record.get("device_code", "")),
            verification_uri=record.get("verification_uri"),
            verification_uri_complete=record.get("verification_uri_complete"),
            interval=record.get("interval") if isinstance(record.get("interval"), int) else None,
        )
        now, mono = time.time(), attempt.clock()
        attempt.started_at = float(record.get("started_at") or now)
        attempt.deadline_at = float(record.get("deadline") or now)
        attempt.deadline = attempt.poll_deadline = mono + (attempt.deadline_at - now)
        attempt._absorb(record, now, mono)
        attempt.phase = "waiting"
        return attempt

    def _absorb(self, record: dict, now: float, mono: float) -> None:
        """Take the counts and the last poll from the record (a watcher keeps up with the poller)."""
        interval = record.get("interval")
        self.interval = max(interval, 1) if isinstance(interval, int) and not isinstance(interval, bool) else self.interval
        self.polls = int(record.get("polls") or 0)
        self.slow_downs = int(record.get("slow_downs") or 0)
        last = record.get("last_poll")
        if isinstance(last, (int, float)) and not isinstance(last, bool):
            self.last_poll = mono - (now - last)
        self.poller_detached = bool(record.get("detached"))

    async def follow(self) -> Outcome:
        """Follow a recorded attempt to its end: poll it when its poller is gone (the lease is
        free), else watch the record, taking the lease over the moment it is released."""
        while True:
            if self.lease.try_take():
                self.role = "poller"
                record = pending.read(self.region.value)
                if not pending.is_pending(record):  # ended while the lease changed hands
                    self.lease.release()
                    return self._from_ended(record)
                self._absorb(record, time.time(), self.clock())
                self._record()
                self._changed("poll")
                return await self.poll()
            self.role = "watcher"
            record = pending.read(self.region.value)
            if not pending.is_pending(record):
                return self._from_ended(record)
            before = (self.polls, self.interval, self.slow_downs, self.poller_detached)
            self._absorb(record, time.time(), self.clock())
            if (self.polls, self.interval, self.slow_downs, self.poller_detached) != before:
                self._changed("slow_down" if self.slow_downs != before[2] else "poll")
            await self.sleep(self.WATCH_EVERY)

    def stop_watching(self) -> bool:
        """A watching terminal cancels: it only stops watching, unless the poller has lost its
        terminal, in which case the attempt is discarded. True when a discard was asked for."""
        if self.role == "watcher" and self.poller_detached:
            pending.request_discard(self.region.value)
            return True
        return False

    def abandon(self) -> None:
        """`login --new`, `n` on Home: discard a recorded attempt, whoever polls it."""
        if self.lease.try_take():
            self.lease.release()
            pending.remove(self.region.value)
        else:
            pending.request_discard(self.region.value)

    def give_up(self) -> None:
        """The person declined to keep polling after an error: the attempt ends here."""
        if self.role == "poller" and self.outcome is not None and self.lease.held:
            self._end_record(self.outcome)

    def _from_ended(self, record: dict | None) -> Outcome:
        kind = record.get("outcome") if record else "discarded"
        kind = "discarded" if record is None or kind not in _OUTCOMES else kind
        self.identity = record.get("identity") if record else None
        detail = record.get("detail") if record else None
        return self._finish(outcome_for(kind, detail), record_it=False)

    # -- a lost terminal -------------------------------------------------------------------
    def detach(self) -> bool:
        """The terminal went away: carry on without one (only a poller that has shown its code,
        and only when detachable). Approved tokens waiting for the slot's locks now wait at most
        `LOCK_WAIT_DETACHED`. False when the attempt cannot carry on (the face ends as before)."""
        if not self.detachable or self.phase not in ("waiting", "saving") or self.role != "poller":
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
        if self._idle or self.phase in ("saving", "finished"):
            callback()
        else:
            self._on_idle = callback

    async def _between_polls(self, seconds: float) -> None:
        self._idle = True
        try:
            if self._on_idle is not None:
                callback, self._on_idle = self._on_idle, None
                callback()
            await self.sleep(seconds)
        finally:
            self._idle = False

    # -- callbacks of the core -------------------------------------------------------------
    def _on_status(self, status: PollStatus) -> None:
        self.polls += 1
        self.last_poll = self.clock()
        if status.interval:
            self.interval = status.interval
        if status.status == "slow_down":
            self.slow_downs += 1
        self._record()
        if pending.discard_requested(self.region.value):
            raise _Discarded
        self._changed(status.status if status.status == "slow_down" else "poll")

    def _waiting_for_lock(self, text: str) -> None:
        self.phase, self.lock_wait = "saving", text
        self._changed("saving")

    async def _save(self, tokens: dict, region: Region) -> str:
        """Spec 4.4 through the one home of saving; the tokens are kept until saved, and a lost
        terminal turns an unbounded wait for the locks into a bounded one."""
        self.approved = dict(tokens)
        while True:
            bound = self.LOCK_WAIT_DETACHED if self.detached else None
            self._saving = asyncio.ensure_future(save_signin(tokens, region, timeout=bound))
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
            self.approved = None
            return name

    def _finish(self, outcome: Outcome, *, record_it: bool = True, notify: bool = True) -> Outcome:
        self.phase, self.outcome = "finished", outcome
        if self._on_idle is not None:  # nothing is in flight any more
            callback, self._on_idle = self._on_idle, None
            callback()
        if record_it and self.role == "poller" and not (outcome.kind == "error" and self.can_keep_polling and not self.detached):
            self._end_record(outcome)
        if notify:
            self._changed("finished")
        return outcome

    # -- the record ------------------------------------------------------------------------
    def _record(self) -> None:
        """The pending attempt on disk, for a second terminal and for a lost one."""
        if self.role != "poller" or self.auth is None:
            return
        now = time.time()
        last = None if self.last_poll is None else now - (self.clock() - self.last_poll)
        try:
            pending.write(self.region.value, {
                "version": 1,
                "state": pending.PENDING,
                "region": self.region.value,
                "started_at": self.started_at,
                "deadline": self.deadline_at,
                "device_code": self.auth.device_code,
                "user_code": self.auth.user_code,
                "verification_uri": self.auth.verification_uri,
                "verification_uri_complete": self.auth.verification_uri_complete,
                "interval": self.interval,
                "last_poll": last,
                "polls": self.polls,
                "slow_downs": self.slow_downs,
                "poller_pid": os.getpid(),
                "detached": self.detached,
            })
        except (OSError, pending.RecordProblem):
            pass  # the attempt goes on; only following it from another terminal is lost

    def _end_record(self, outcome: Outcome) -> None:
        """How it ended, without the device code; "seen" when a terminal shows it now."""
        identity = None
        if outcome.success:
            identity = slot_status(self.storage_name).identity_claim
        detail = (outcome.error or "").splitlines()[0] if outcome.error else None
        try:
            if self.started_at is not None:
                record = {"region": self.region.value, "started_at": self.started_at}
                pending.write(self.region.value, pending.ended(record, outcome.kind, identity, not self.detached, detail))
        except (OSError, pending.RecordProblem):
            pass
        finally:
            pending.clear_discard(self.region.value)
            self.lease.release()

    def who(self) -> str:
        """ "Signed in as user-1 · cn" after success (the token's claims, not verified)."""
        return signed_in_as(slot_status(self.storage_name))

    def _record_written(self) -> None:
        self.written = {"credentials": str(credentials_path(self.storage_name)), "config": str(config_path())}
        self.config_note = exposure()  # config.toml others can read or write: said, with the fix
