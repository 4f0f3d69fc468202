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

The layers, each with one job: `AttemptView` (view.py) holds the data and what is derived from
it; `Moves` (moves.py) is the one gate of every phase move, the events, the end and the record;
`SignIn` (here) is the operations built on them.

A face learns of changes through `on_change(event)`, called on the event loop that runs the
attempt, with one of the `EVENTS`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from tui.core.errors import AuthError
from tui.core.http import REQUEST_TIMEOUT
from tui.core.signin import follow, kept
from tui.core.signin.protocol import (
    DeviceAuthorization,
    PollResult,
    PollStatus,
    poll_for_tokens,
    start_device_authorization,
)
from tui.core.signin.saves import Saving
from tui.core.signin.state import EVENTS, TRANSITIONS, InvalidTransition, Outcome, Phase, failed, outcome_for
from tui.core.spec.keys import DEFAULT_ACCOUNT
from tui.core.spec.region_endpoints import endpoints
from tui.core.spec.regions import Region
from tui.core.text.i18n import _
from tui.core.text.redact import redact
from tui.core.text.untrusted import one_line

if TYPE_CHECKING:
    import httpx

__all__ = ["EVENTS", "InvalidTransition", "Outcome", "Phase", "SignIn", "TRANSITIONS", "outcome_for"]


def unexpected_error(exc: BaseException, unsaved: bool = False) -> str:
    """An error no step expects, as one line without a secret (`unsaved`: approved tokens were lost)."""
    error = _("unexpected error: {error}").format(error=one_line(f"{type(exc).__name__}: {redact(str(exc))}", 300))
    return _("{error}; the approved sign-in was not saved").format(error=error) if unsaved else error


class _Discarded(Exception):
    """Raised inside the poll loop when a watching terminal asked to discard the attempt."""


class SignIn(Saving):
    """A sign-in attempt in `region`. `await attempt.run()` joins the region (leads or follows)
    and goes to the end; `poll()` keeps polling the same code after network trouble. Read its
    state at any time."""

    WATCH_EVERY = 0.5  # seconds between looks at the record while another process polls
    CODE_WAIT = REQUEST_TIMEOUT + 5.0  # seconds a follower waits for the leader's code (its request's whole budget)

    def __init__(
        self,
        region: Region,
        *,
        client: httpx.AsyncClient | None = None,
        on_change: Callable[[str], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        detachable: bool | None = None,
        account: str | None = None,
    ) -> None:
        super().__init__(region, clock, on_change, sleep, None if account == DEFAULT_ACCOUNT else account)
        self.host = endpoints(region).oauth_host
        self.client = client
        # a lost terminal lets the attempt carry on by itself; never for a caller that drives the
        # HTTP client itself (tests, library callers), nor in the demo (the face says so)
        self.detachable = client is None if detachable is None else detachable
        self.approval = None  # approved tokens, until they are saved (`Saving`)
        self.watch_since = 0.0  # on `clock`: when this process began to follow another's attempt

    # -- running -------------------------------------------------------------------------------
    async def run(self) -> Outcome:
        """Join the region and go on to the end: request a code (we lead), poll a live attempt
        whose poller is gone (take over), or follow the one another terminal polls."""
        if (refused := self.refused()) is not None:  # tokens it could not store: nothing is asked
            return self._finish(failed(refused), record_it=False)
        if (approved := kept.kept(self.storage_name)) is not None:  # approved earlier, not stored then
            return await self._save_kept(approved)
        self._join()
        while self.phase is Phase.WATCHING:
            await self._watch()
        if self.phase is Phase.REQUESTING and not await self._request():
            return self._ended()
        if self.phase is Phase.WAITING:
            return await self.poll()
        return self._ended()

    async def request_code(self) -> DeviceAuthorization:
        """Lead a new attempt and request its code (spec 3.1); AuthError as the spec says, or when
        another terminal leads this region's attempt, or when the slot's tokens could not be stored."""
        if (refused := self.refused()) is not None:
            raise refused
        self._join()
        if self.phase is not Phase.REQUESTING or not await self._request():
            raise AuthError(
                (self.outcome.error if self.outcome else None) or "A sign-in is already under way in another terminal"
            )
        if self.auth is None:  # pragma: no cover - a requested code is kept
            raise RuntimeError("no code after the request")
        return self.auth

    def _join(self) -> None:
        joined = self.shared.join()
        if joined.role in (follow.Role.LEAD, follow.Role.ALONE):
            self._step(follow.Watch.START, None)
        elif joined.role is follow.Role.TAKE_OVER and joined.record is not None:
            self._step(follow.Watch.TAKE_OVER, joined.record)
        else:
            self._to(Phase.WATCHING)
            self.watch_since = self.clock()
            self._changed("following")
            self._step(follow.Watch.WAIT, joined.record)

    async def _request(self) -> bool:
        """REQUESTING -> WAITING with the code, or ENDED with the error (the record says so)."""
        try:
            auth = await start_device_authorization(self.region, client=self.client)
        except AuthError as exc:
            self._finish(failed(exc))
            return False
        except asyncio.CancelledError:  # Ctrl+C, SIGTERM, Esc before the code arrived
            self._finish(outcome_for("discarded"), notify=False)
            raise
        self.took(auth)
        self._to(Phase.WAITING)
        self._publish()
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
            return self._finish(failed(exc))
        except _Discarded:
            return self._finish(outcome_for("discarded"))
        except asyncio.CancelledError:
            if not self.detached:  # Esc, Ctrl+C, SIGTERM: the attempt is discarded
                self._finish(outcome_for("discarded"), notify=False)
            raise
        except Exception as exc:
            if not self.detached:  # a face is there to report it (its error boundary)
                raise
            return self.end_unexpectedly(exc)
        return self._finish(outcome_for(self._kind(result)))

    def _kind(self, result: PollResult) -> str:
        """A poll loop's end as an outcome: reaching the deadline is "expired" when it was the
        code's own lifetime."""
        return self.ends_as if result.status.status == "timeout" else result.status.status

    async def carry_on(self) -> Outcome:
        """To the end without a terminal: save tokens already approved, else keep polling the
        same code (retrying network or server trouble after the back-off, until the deadline)."""
        self.detached = True
        try:
            if self.approval is not None and self.phase is Phase.SAVING:
                try:
                    await self._save(self.approval.tokens)
                except AuthError as exc:
                    return self._finish(failed(exc, transient=False))
                return self._finish(outcome_for("success"))
            outcome = self.outcome if self.phase is Phase.ENDED and self.outcome else await self.poll()
            while self.can_keep_polling:
                await self.sleep(self.BACK_OFF)
                outcome = await self.poll()
            return outcome
        except Exception as exc:  # nobody is there to report it: the record says how it ended
            return self.end_unexpectedly(exc)

    def end_unexpectedly(self, exc: BaseException) -> Outcome:
        """An error no step expects ended an attempt without a terminal: it ends as an "error"
        outcome (not one to poll through again), and its record says so, never "pending" with
        nobody polling. The error is told in one line, without any secret."""
        error = unexpected_error(exc, unsaved=self.phase is Phase.SAVING and self.approval is not None)
        if self.phase is Phase.ENDED and self.outcome is not None:
            if self.can_keep_polling:  # ended on trouble it would have polled through: it ends here
                self.outcome = outcome_for("error", error)
                self.give_up()
            return self.outcome
        return self._finish(outcome_for("error", error))

    # -- following another terminal's attempt -------------------------------------------------
    def _absorb(self, record: follow.Record) -> None:
        event = self.absorb(record)
        if event is not None:
            self._changed(event)

    async def _watch(self) -> None:
        """One look at the leader's attempt; a pause before the next while it goes on."""
        self._step(*self.shared.look())
        if self.phase is Phase.WATCHING:
            self._unless_overdue()
        if self.phase is Phase.WATCHING:
            await self.sleep(self.WATCH_EVERY)

    def _unless_overdue(self) -> None:
        """Whatever the leader does (stopped, as Ctrl+Z stops it; hung): at the code's deadline a
        follower says how it ended, as the leader would; a leader that shows no live code within
        `CODE_WAIT` is left behind, and this process requests a code of its own (one no other
        terminal can follow: the lease is the stalled leader's)."""
        if self.auth is not None:
            if self.seconds_left() <= 0:
                self._finish(outcome_for(self.ends_as), record_it=False)
        elif self.clock() - self.watch_since > self.CODE_WAIT:
            self.shared.go_alone()
            self._to(Phase.REQUESTING)

    def _step(self, step: follow.Watch, record: follow.Record | None) -> None:
        """A follower's move: the attempt it joined ended (say how), the lease is ours and the
        attempt is live (poll its code ourselves, within its deadline), the lease is ours and
        nothing is left to follow (start one), or it goes on (take its figures)."""
        if step is follow.Watch.ENDED and record is not None:
            self._finish(outcome_for(record.outcome or "discarded", record.detail), record_it=False)
        elif step is follow.Watch.TAKE_OVER and record is not None:
            self._to(Phase.WAITING)
            self._changed("resumed")  # nobody polled it: this process does now (no "other terminal" follows)
            self._absorb(record)
            self._publish()
        elif step is follow.Watch.START:
            self._to(Phase.REQUESTING)
        elif record is not None and record.state == follow.PENDING and (self.auth is not None or record.is_live()):
            self._absorb(record)  # a code already past its deadline is no code to follow

    # -- a lost terminal -------------------------------------------------------------------
    def detach(self) -> bool:
        """The terminal went away: carry on without one (only a poller that has shown its code,
        and only when detachable). Approved tokens waiting for the slot's locks now wait at most
        `LOCK_WAIT_DETACHED`. False when the attempt cannot carry on (the face ends as before)."""
        if (
            not self.detachable
            or self.phase not in (Phase.WAITING, Phase.POLLING, Phase.SAVING)
            or not self.shared.leads
        ):
            return False
        self.detached = True
        self.on_change = None  # nobody to tell
        self._publish()
        if self.approval is not None:
            self.approval.bind(self.LOCK_WAIT_DETACHED)  # a wait for the locks in progress too
        return True

    # -- callbacks of the protocol -------------------------------------------------------------
    def _on_status(self, status: PollStatus) -> None:
        event = self.answered(status)
        self._publish()
        if self.shared.discard_requested():
            raise _Discarded
        self._changed(event)
