"""The sign-in attempt's state as data: its phases, every allowed move between them, and the
outcomes it can end with. `tui.core.signin.attempt.SignIn` moves through them; faces read them."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from tui.core.errors import AuthError
from tui.core.signin.protocol import POLL_BUDGET
from tui.core.text.i18n import _
from tui.core.text.phrase import N_

EVENTS = ("following", "resumed", "code", "poll", "slow_down", "saving", "finished")
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
    # ENDED: refused before any request; SAVING: tokens approved earlier, kept when they could not be stored
    Phase.NEW: frozenset({Phase.REQUESTING, Phase.WAITING, Phase.WATCHING, Phase.SAVING, Phase.ENDED}),
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
    said: str | None = None  # the error for a person: the spec's message as it is, its hint in the reader's language

    @property
    def success(self) -> bool:
        return self.kind == "success"


_OUTCOMES = {
    "success": (N_("Signed in"), N_("The sign-in was approved and saved.")),
    "expired": (N_("The code expired"), N_("The code was not approved in time; a new sign-in gets a new code.")),
    "timeout": (N_("Gave up waiting"), N_("No approval within {minutes} minutes; a new sign-in gets a new code.")),
    "access_denied": (
        N_("Access denied"),
        N_("The request was denied in the browser. Try again if that was a mistake."),
    ),
    "error": (N_("Sign-in failed"), N_("The sign-in stopped with this error:")),
    "discarded": (
        N_("Sign-in discarded"),
        N_("The sign-in was discarded in another terminal; nothing was saved."),
    ),
}


def outcome_for(kind: str, error: str | None = None, transient: bool = False, said: str | None = None) -> Outcome:
    kind = kind if kind in _OUTCOMES else "error"
    title, text = _OUTCOMES[kind]
    # in the reader's language; `error` (the spec's message, word for word) stays as it is
    return Outcome(kind, _(title), _(text).format(minutes=MINUTES), error, transient, said)


def failed(exc: AuthError, *, transient: bool | None = None) -> Outcome:
    """The "error" outcome of an AuthError (transient as the error says, unless told)."""
    return outcome_for(
        "error", exc.describe(), exc.transient if transient is None else transient, said=exc.said(lead=False)
    )
