"""The relay, on a server: a slot's shared credential file kept filled with an **access-only**
credential from the token agent (refresh token empty), so the official client there works
unchanged while the refresh token stays on the person's own machine.

What the official clients do with such a file was measured (`python -m tui.dev.official_clients`,
written down in docs/agent.md): both try to refresh when less than `max(300, expires_in / 2)`
seconds are left; with no refresh token the legacy client keeps using the access token and the
current client refuses the request ("re-login required") until the file is renewed. Neither writes,
removes or signs out of the file at any stage. So the relay writes `expires_in` 0 (both thresholds
are then 300 s) and renews `MARGIN` seconds before that threshold: the official client never
reaches it while the agent answers. When the agent goes away the relay stops; the file's token
simply expires.

Rules (pure): `judge` what a slot file is, `relayed` the content written, `renew_in` when.
Edges: `write_relayed` (under the slot's locks, the file judged again right before writing) and
`Relay` (the loop)."""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from tui.core.agent.client.ask import AgentUnavailable, Session
from tui.core.agent.wire.causes import server_words
from tui.core.agent.wire.protocol import EXIT_AGAIN, EXIT_UNMET, Request
from tui.core.credentials.locks import hold_slot_sync
from tui.core.credentials.slot import expires_at_of, parse_credentials, read_text, usable_token, write_credentials
from tui.core.errors import AuthError
from tui.core.signin.record import LATEST
from tui.core.slots.selector import Selector
from tui.core.spec import paths
from tui.core.text.phrase import N_, Phrase

OFFICIAL_THRESHOLD = 300  # s left at which both official clients refresh, with expires_in 0 (measured)
MARGIN = 120  # s before that threshold the file is renewed
RENEW_LEFT = OFFICIAL_THRESHOLD + MARGIN  # renew when the written token has less than this left
ASK_TTL = RENEW_LEFT + 180  # the lifetime asked of the agent: every token written serves at least 3 minutes
UNKNOWN_EXPIRY_EVERY = 300  # s between renewals of a token whose expiry the agent does not know
RETRY = 30  # s before asking again after a failure the agent expects to pass
PING = 5  # s between checks that the agent is still there while the relay waits: they also keep its one
# connection open (the agent closes one idle for 10 s), so `--confirm` asks once for the relay's life


class Verdict(enum.Enum):
    EMPTY = "empty"  # no file: the relay may write one
    RELAYED = "relayed"  # an access-only credential (the relay's, or a tombstone): may be renewed
    SIGNED_IN = "signed in"  # holds a refresh token: a sign-in of this machine, never written over
    DAMAGED = "damaged"  # cannot be read as credentials: reported, never replaced


def judge(text: str | None) -> Verdict:
    """What a slot file holding `text` (None: no file) is to the relay."""
    return classify(text)[0]


def classify(text: str | None) -> tuple[Verdict, dict[str, Any] | None]:
    """`judge`'s verdict and, for a file the relay may renew, its parsed content (read once)."""
    if text is None:
        return Verdict.EMPTY, None
    try:
        data = parse_credentials(text)
    except AuthError:
        return Verdict.DAMAGED, None
    refresh = data.get("refresh_token")
    if isinstance(refresh, str) and refresh:
        return Verdict.SIGNED_IN, None
    return Verdict.RELAYED, data


def written_by_the_relay(data: Mapping[str, Any] | None) -> bool:
    """The shape `relayed` writes (an access token, an empty refresh token, expires_in 0, a real
    expiry): what the official client on a server reads, renewed from the person's own machine.
    Narrower than `Verdict.RELAYED` (any access-only file the relay may renew, a tombstone too)."""
    data = data or {}
    expires_at = expires_at_of(data)
    return data.get("refresh_token") == "" and data.get("expires_in") == 0 and expires_at is not None and expires_at > 0


def relayed(current: Mapping[str, Any] | None, access_token: str, expires_at: int | None) -> dict[str, Any]:
    """The file's new content: the fields it had (a scope, fields another client added) with the
    access token, an empty refresh token, expires_in 0 and the token's expiry (absent: unknown)."""
    data = dict(current or {})
    data.update(access_token=access_token, refresh_token="", expires_in=0)
    data["token_type"] = "Bearer"  # noqa: S105 - the scheme, not a secret
    if expires_at is None:
        data.pop("expires_at", None)
    else:
        data["expires_at"] = expires_at
    return data


def renew_in(expires_at: int | None, now: float, renew_left: float = RENEW_LEFT) -> float:
    """Seconds until the written token must be replaced (at least a second)."""
    if expires_at is None:
        return UNKNOWN_EXPIRY_EVERY
    return max(1.0, expires_at - renew_left - now)


class RelayRefused(AuthError):
    """The slot cannot be relayed to (a sign-in of this machine, a damaged file)."""


SIGNED_IN_HERE = N_(
    "The relay does not write to {path}: it holds a refresh token, a sign-in of this machine. "
    "The relay never writes over one; use that sign-in, or sign out of it here first (assistant-auth logout)."
)
DAMAGED_HERE = N_(
    "The relay does not write to {path}: it cannot be read as credentials, and a damaged file is never "
    "replaced. See `assistant-auth doctor`."
)


CANNOT_WRITE = N_("The relay cannot write {path}: {reason}. The file is unchanged.")


def write_relayed(storage_name: str, access_token: str, expires_at: int | None) -> Verdict:
    """Write the access-only credential under the slot's locks (shared with the official clients),
    the file judged again right before writing. RelayRefused when it is not the relay's to write."""
    path = paths.credentials_file(storage_name)
    with hold_slot_sync(storage_name):
        try:
            verdict, current = classify(read_text(path))
        except FileNotFoundError:
            verdict, current = Verdict.EMPTY, None
        except (OSError, ValueError):  # a directory, a FIFO, over the size bound, not UTF-8
            verdict, current = Verdict.DAMAGED, None
        if verdict is Verdict.SIGNED_IN:
            raise RelayRefused(Phrase(SIGNED_IN_HERE, path=path))
        if verdict is Verdict.DAMAGED:
            raise RelayRefused(Phrase(DAMAGED_HERE, path=path))
        try:
            write_credentials(storage_name, relayed(current, access_token, expires_at))
        except OSError as exc:  # a full disk, a quota, a read-only file system: atomic, so nothing changed
            raise AuthError(Phrase(CANNOT_WRITE, path=path, reason=exc.strerror or str(exc))) from None
    return verdict


# -- the loop --------------------------------------------------------------------------------------


class Outcome(enum.IntEnum):
    """How the relay ended: its exit code."""

    STOPPED = 0  # asked to stop (a signal, the connection's end)
    REFUSED = 1  # the slot is not the relay's to write, or the agent has no sign-in to serve
    UNMET = 2  # the agent's tokens cannot live long enough for the official client
    AGENT_GONE = 3  # the agent does not answer


@dataclass
class Timing:
    """The relay's clock; tests shorten it."""

    ask_ttl: int = ASK_TTL
    renew_left: int = RENEW_LEFT
    retry: float = RETRY
    ping: float = PING


Say = Callable[[str], object]


class Relay:
    def __init__(
        self,
        storage_name: str,
        selector: Selector,
        say: Say,
        socket: str | None = None,
        timing: Timing | None = None,
        note: Say | None = None,
        session: Session | None = None,
        region: str | None = None,
        first_written: Callable[[], object] | None = None,
    ) -> None:
        self.storage_name = storage_name
        self.selector = selector
        self.say = say  # what went wrong
        self.note = note or say  # each renewal
        self.timing = timing or Timing()
        self.stopping = threading.Event()
        self.written = 0  # credentials written, for the log and tests
        self.session = session or Session(socket)
        self.region = region  # the region of the slot the relay writes (None: not known); never another's token
        self.first_written = first_written  # once the first token is in its slot

    def stop(self) -> None:
        """Stop at once: a wait on the agent ends now (a signal handler's call); a write in hand
        is finished first (it is atomic, under the slot's locks)."""
        self.stopping.set()
        self.session.interrupt()

    def run(self, once: bool = False) -> Outcome:
        try:
            return self._run(once)
        finally:
            self.session.close()

    def _run(self, once: bool) -> Outcome:
        while not self.stopping.is_set():
            try:
                answer = self.session.ask(Request("token", self.selector, self.timing.ask_ttl))
            except AgentUnavailable as exc:
                return Outcome.STOPPED if self.stopping.is_set() else self._gone(exc.args[0])
            if not answer["ok"]:
                ended = self._refused(answer)
                if ended is None and not once:  # the agent expects it to pass: ask again later
                    if self._wait(_retry_after(answer, self.timing.retry)) is not None:
                        return Outcome.AGENT_GONE
                    continue
                return ended or Outcome.REFUSED
            token, expires_at = answer.get("access_token"), _expiry(answer.get("expires_at"))
            if not isinstance(token, str) or not usable_token(token):
                return self._gone(Phrase(N_("The token agent sent no usable access token.")))
            region = answer.get("region")
            if self.region is not None and isinstance(region, str) and region != self.region:
                self.say(Phrase(REGION_CHANGED, slot=self.storage_name, region=region, wanted=self.region))
                return Outcome.REFUSED
            try:
                write_relayed(self.storage_name, token, expires_at)
            except RelayRefused as exc:
                self.say(exc.message)
                return Outcome.REFUSED
            except AuthError as exc:  # the locks could not be had: said, tried again
                self.say(exc.message)
                if once:
                    return Outcome.REFUSED
                if self._wait(self.timing.retry) is not None:
                    return Outcome.AGENT_GONE
                continue
            self.written += 1
            if self.written == 1 and self.first_written is not None:
                self.first_written()
            self.note(_written(self.storage_name, expires_at))
            if once:
                return Outcome.STOPPED
            if self._wait(renew_in(expires_at, time.time(), self.timing.renew_left)) is not None:
                return Outcome.AGENT_GONE
        return Outcome.STOPPED

    def _gone(self, why: str) -> Outcome:
        """Say why the agent cannot serve, and, when the relay wrote a token, that it expires by itself."""
        self.say(why)
        if self.written:
            self.say(STOPS)
        return Outcome.AGENT_GONE

    def _refused(self, answer: Mapping[str, object]) -> Outcome | None:
        """Say the agent's refusal; the outcome when it ends the relay, None to ask again later."""
        error = answer.get("error")
        worded = server_words(answer.get("cause"), self.selector)  # a server's reader: about the person's own machine
        if worded is not None:
            self.say(worded[0])
        else:
            self.say(error if isinstance(error, str) else Phrase(N_("The token agent refused the request.")))
        code = answer.get("exit")
        if code == EXIT_AGAIN or _retry_after(answer, 0):
            return None
        return Outcome.UNMET if code == EXIT_UNMET else Outcome.REFUSED

    def _wait(self, seconds: float) -> Outcome | None:
        """Sleep `seconds` (until a stop), checking every `ping` seconds that the agent is there:
        AGENT_GONE (said) when it is not."""
        deadline = time.monotonic() + seconds
        while not self.stopping.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if self.stopping.wait(min(left, self.timing.ping)):
                return None
            try:
                self.session.ask(Request("ping"), timeout=max(self.timing.ping, 10.0))
            except AgentUnavailable as exc:
                return None if self.stopping.is_set() else self._gone(exc.args[0])
        return None


REGION_CHANGED = N_(
    "The token agent now serves a {region} token for this request; slot {slot} here is read for the {wanted} API. "
    "The relay stops: run it again."
)
STOPS = Phrase(N_("The relay stops; the access token it wrote expires by itself."))


def _retry_after(answer: Mapping[str, object], otherwise: float) -> float:
    """When the agent says the request can be met again (its refresh spacing), bounded to an hour."""
    after = answer.get("retry_after")
    if isinstance(after, int) and not isinstance(after, bool) and 0 < after <= 3600:
        return after
    return otherwise


def _expiry(value: object) -> int | None:
    """The agent's `expires_at` when it is a date a clock can show (a whole number, as the agent
    sends it), else None (unknown: renewed every `UNKNOWN_EXPIRY_EVERY` seconds, the file written
    without it)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= LATEST:
        return value
    return None


def _written(storage_name: str, expires_at: int | None) -> Phrase:
    if expires_at is None:
        return Phrase(N_("Relayed an access token to slot {slot} (its expiry is not known)."), slot=storage_name)
    until = time.strftime("%H:%M:%S", time.localtime(expires_at))
    return Phrase(N_("Relayed an access token to slot {slot}, valid until {time}."), slot=storage_name, time=until)
