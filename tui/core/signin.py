"""One device sign-in attempt (spec 3), owned by a UI-free object both faces render.

`SignIn` requests the code, runs `poll_device_token` and keeps everything a face shows: the
code and the addresses, the deadline and what is left of it, the interval, the polls and
slow-downs, the outcome with its text, and what was written. The command line's
`login --no-tui` prints it line by line; the wizard draws it. Neither keeps its own counters.

A face learns of changes through `on_change(event)`, called on the event loop that runs the
attempt, with one of the `EVENTS`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

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
from tui.core.signin_store import slot_of
from tui.core.slots.state import signed_in_as, slot_status

EVENTS = ("code", "poll", "slow_down", "saving", "finished")
MINUTES = POLL_BUDGET // 60


@dataclass(frozen=True)
class Outcome:
    """How an attempt ended: `kind` is a terminal poll status or "error"."""

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
}


def outcome_for(kind: str, error: str | None = None, transient: bool = False) -> Outcome:
    kind = kind if kind in _OUTCOMES else "error"
    title, text = _OUTCOMES[kind]
    return Outcome(kind, title, text, error, transient)


class SignIn:
    """A sign-in attempt in `region`. Run it with `await attempt.run()` (or `request_code()`
    then `poll()`); read its state at any time."""

    BACK_OFF = 3.0  # seconds before polling again by itself, once, after network or server trouble

    def __init__(
        self,
        region: Region | str | None = None,
        *,
        client: object | None = None,
        on_change: Callable[[str], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.region = parse_region(region.value if isinstance(region, Region) else region)
        self.host = endpoints(self.region).oauth_host
        self.storage_name = slot_of(self.region)  # the slot this attempt writes, worked out once
        self.client = client
        self.on_change = on_change
        self.clock = clock
        self.sleep = sleep
        self.phase = "requesting"  # requesting | waiting | saving | finished
        self.auth: DeviceAuthorization | None = None
        self.deadline = 0.0  # when the code expires (its lifetime, within the spec's budget)
        self.poll_deadline: float | None = None  # the spec's 15-minute budget, from the first poll
        self.interval = 0
        self.polls = 0
        self.slow_downs = 0
        self.continued = 0  # polls started again with the same code after an error
        self.lock_wait: str | None = None  # "Waiting for …" while approved tokens wait for the slot
        self.outcome: Outcome | None = None
        self.written: dict[str, str] = {}  # "credentials" / "config" -> path, after success
        self.config_note: str | None = None  # after success: config.toml is exposed, and the fix

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
        """Spec 3.1. AuthError as the spec says; the attempt is then finished with an error."""
        try:
            auth = await start_device_authorization(self.region, client=self.client)
        except AuthError as exc:
            self._finish(outcome_for("error", exc.describe()))
            raise
        self.auth = auth
        self.deadline = self.clock() + auth.time_budget
        self.interval = max(auth.poll_interval, 1)
        self.phase = "waiting"
        self._changed("code")
        return auth

    async def poll(self) -> Outcome:
        """Spec 3.2 with the code already requested, within this attempt's deadline. Calling it
        again after an error keeps polling with the same device code."""
        if self.auth is None:
            raise RuntimeError("request_code() first")
        if self.outcome is not None:
            self.continued += 1
        self.phase, self.outcome = "waiting", None
        if self.poll_deadline is None:
            self.poll_deadline = self.clock() + POLL_BUDGET  # what poll_device_token does by itself
        try:
            with reporting_to(self._waiting_for_lock):
                status = await poll_device_token(
                    self.auth.device_code,
                    self.interval,
                    self.region,
                    client=self.client,
                    on_status=self._on_status,
                    clock=self.clock,
                    sleep=self.sleep,
                    deadline=self.poll_deadline,
                )
        except AuthError as exc:
            return self._finish(outcome_for("error", exc.describe(), exc.transient))
        if status.status == "success":
            self._record_written()
        return self._finish(outcome_for(status.status))

    async def run(self) -> Outcome:
        try:
            await self.request_code()
        except AuthError:
            return self.outcome  # type: ignore[return-value]
        return await self.poll()

    @property
    def can_keep_polling(self) -> bool:
        """After network or server trouble while polling, the same code may still be approved
        before the deadline: `poll()` again keeps polling with it."""
        return (
            self.outcome is not None
            and self.outcome.kind == "error"
            and self.outcome.transient
            and self.auth is not None
            and self.poll_deadline is not None
            and self.poll_deadline - self.clock() > self.interval
            and self.seconds_left() > 0
        )

    @property
    def retries_by_itself(self) -> bool:
        """The first network or server trouble is polled through again without asking, after
        `BACK_OFF` seconds; after that a face asks the person (a key, a question)."""
        return self.can_keep_polling and self.continued == 0

    def retry_notice(self) -> str:
        """What a face says while it waits to poll again by itself."""
        first = (self.outcome.error or "").splitlines()[0] if self.outcome and self.outcome.error else ""
        return f"{first}\nNetwork or server trouble: polling again with the same code in {self.BACK_OFF:g} s…"

    # -- callbacks of the core -------------------------------------------------------------
    def _on_status(self, status: PollStatus) -> None:
        self.polls += 1
        if status.interval:
            self.interval = status.interval
        if status.status == "slow_down":
            self.slow_downs += 1
        self._changed(status.status if status.status == "slow_down" else "poll")

    def _waiting_for_lock(self, text: str) -> None:
        self.phase, self.lock_wait = "saving", text
        self._changed("saving")

    def _finish(self, outcome: Outcome) -> Outcome:
        self.phase, self.outcome = "finished", outcome
        self._changed("finished")
        return outcome

    def who(self) -> str:
        """ "Signed in as user-1 · cn" after success (the token's claims, not verified)."""
        return signed_in_as(slot_status(self.storage_name))

    def _record_written(self) -> None:
        self.written = {"credentials": str(credentials_path(self.storage_name)), "config": str(config_path())}
        self.config_note = exposure()  # config.toml others can read or write: said, with the fix
