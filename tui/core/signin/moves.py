"""How a sign-in attempt moves and who hears of it: the one gate of every phase move (`_to`, along
`TRANSITIONS`), the events a face is told of, the hand-off to a face waiting for a moment when no
poll is in flight, the end, and the record other terminals read. `SignIn` builds its operations
(join, request, poll, save, follow, carry on) on these; `AttemptView` below holds the data."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tui.core.errors import AuthError
from tui.core.files.access import refusal, slot_blocked
from tui.core.signin.shared import Shared
from tui.core.signin.state import TRANSITIONS, InvalidTransition, Outcome, Phase
from tui.core.signin.view import AttemptView
from tui.core.slots.state import signed_in_as, slot_status
from tui.core.spec.keys import DEFAULT_ACCOUNT, account_slot
from tui.core.spec.regions import Region


class Moves(AttemptView):
    def __init__(
        self,
        region: Region,
        clock: Callable[[], float],
        on_change: Callable[[str], object] | None,
        sleep: Callable[[float], Awaitable[None]],
        account: str | None = None,
    ) -> None:
        super().__init__(region, clock, Shared(region, account))
        self.on_change = on_change
        self.sleep = sleep
        self._on_idle: Callable[[], object] | None = None

    @property
    def storage_name(self) -> str:
        """The slot this attempt writes: its account's (a joined attempt's, once joined)."""
        return account_slot(self.region, self.shared.account or DEFAULT_ACCOUNT)

    def refused(self) -> AuthError | None:
        """Why this attempt's tokens could not be stored, found before any code is requested (an
        approval consumes the code: tokens it could not store would be lost), else None."""
        blocked = slot_blocked(self.storage_name)
        return None if blocked is None else refusal(blocked)

    def who(self) -> str:
        """ "Signed in as user-1 · cn" after success (the token's claims, not verified)."""
        return signed_in_as(slot_status(self.storage_name))

    @property
    def account(self) -> str | None:
        """The named account this attempt signs in to (None: the region's own slot)."""
        return self.shared.account

    # -- the state -----------------------------------------------------------------------------
    def _to(self, phase: Phase) -> None:
        if phase not in TRANSITIONS[self.phase]:
            raise InvalidTransition(f"{self.phase.value} -> {phase.value}")
        self.phase = phase

    def _changed(self, event: str) -> None:
        if self.on_change is not None:
            self.on_change(event)

    # -- a face that waits until no poll is in flight ---------------------------------------------
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
        self._idle()
        await self.sleep(seconds)

    def _idle(self) -> None:
        if self._on_idle is not None:
            callback, self._on_idle = self._on_idle, None
            callback()

    # -- the end ---------------------------------------------------------------------------------
    def _finish(self, outcome: Outcome, *, record_it: bool = True, notify: bool = True) -> Outcome:
        self._to(Phase.ENDED)
        self.outcome = outcome
        self._idle()  # nothing is in flight any more
        if record_it and self.shared.lease.held and not self.can_keep_polling:  # else the same code may still be polled
            self._end_record(outcome)
        if notify:
            self._changed("finished")
        return outcome

    def _ended(self) -> Outcome:
        if self.outcome is None:  # pragma: no cover - ENDED always has its outcome
            raise RuntimeError("ended without an outcome")
        return self.outcome

    def give_up(self) -> None:
        """The person declined to keep polling after an error: the attempt ends here."""
        if self.phase is Phase.ENDED and self.outcome is not None and self.shared.lease.held:
            self._end_record(self.outcome)

    def stop_watching(self) -> bool:
        """A watching terminal cancels: it only stops watching, unless the poller has lost its
        terminal, in which case the attempt is discarded. True when a discard was asked for."""
        return self.watching and self.shared.stop_watching()

    # -- the record ------------------------------------------------------------------------
    def _publish(self) -> None:
        progress = self.progress(self.detached)
        if progress is not None:
            self.shared.publish(progress)

    def _end_record(self, outcome: Outcome) -> None:
        """How it ended, without the device code; "seen" when a terminal shows it now."""
        self.shared.end(outcome, self.storage_name, seen=not self.detached)
