"""The device-authorization protocol (spec 3.2, 4.1, 4.2 device grant, RFC 8628): requests in,
tokens out. Nothing here saves: whoever owns the attempt stores the tokens it is handed
(`tui.core.signin.attempt`, or `tui.core.signin.api.poll_device_token` for library callers)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from tui.core.credentials.oauth import oauth_error_code, parse_token_response
from tui.core.errors import AuthError
from tui.core.files import jsonutil
from tui.core.files.identity import identity_headers
from tui.core.http import Response, client_scope, post_form
from tui.core.spec.hints import refused, server_trouble
from tui.core.spec.region_endpoints import endpoints
from tui.core.spec.regions import Region, parse_region
from tui.core.spec.settings import client_id
from tui.core.text.redact import excerpt, register_secret

if TYPE_CHECKING:
    import httpx

log = logging.getLogger("tui.core.signin.protocol")

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
POLL_BUDGET = 15 * 60  # seconds (spec 8)
MIN_INTERVAL = 1
DEFAULT_INTERVAL = 5  # RFC 8628 §3.2: what a client uses when the server sends no interval
SLOW_DOWN_STEP = 5

StatusName = Literal["pending", "slow_down", "success", "expired", "access_denied", "timeout"]


@dataclass(frozen=True)
class DeviceAuthorization:
    """Spec 2.3. `to_dict` keeps the snake_case names and None as null."""

    user_code: str
    device_code: str
    verification_uri: str | None = None
    verification_uri_complete: str | None = None
    expires_in: int | None = None
    interval: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def poll_interval(self) -> int:
        """The interval to start polling with: the server's, else RFC 8628's default."""
        return self.interval if self.interval is not None else DEFAULT_INTERVAL

    @property
    def time_budget(self) -> int:
        """Seconds worth waiting for approval: the poll budget, or less when the code expires first."""
        if self.expires_in is None or self.expires_in <= 0:
            return POLL_BUDGET  # a lifetime of 0 or less is nonsense: the spec's budget rules
        return min(POLL_BUDGET, self.expires_in)

    def __repr__(self) -> str:  # the device code is a secret: keep it out of reprs and logs
        return (
            f"DeviceAuthorization(user_code={self.user_code!r}, device_code='[redacted]', "
            f"verification_uri={self.verification_uri!r}, "
            f"verification_uri_complete={self.verification_uri_complete!r}, "
            f"expires_in={self.expires_in!r}, interval={self.interval!r})"
        )


@dataclass(frozen=True)
class PollStatus:
    """Spec 2.4: tagged by `status`; `interval` only for pending / slow_down."""

    status: StatusName
    interval: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status}
        if self.interval is not None and self.status in ("pending", "slow_down"):
            out["interval"] = self.interval
        return out


@dataclass(frozen=True)
class PollResult:
    """How a poll loop ended: a terminal status, and with "success" the approved tokens (not yet
    saved: the caller saves them)."""

    status: PollStatus
    tokens: dict[str, Any] | None = None

    def __repr__(self) -> str:  # the tokens are secrets
        return f"PollResult(status={self.status!r}, tokens={'[redacted]' if self.tokens else None})"


def parse_device_authorization(text: str) -> DeviceAuthorization:
    """Strict parse of the 2.3 body; ValueError with a readable detail otherwise."""
    data = jsonutil.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, found {type(data).__name__}")
    for field in ("user_code", "device_code"):
        if not isinstance(data.get(field), str):
            raise ValueError(f"missing field `{field}`" if field not in data else f"field `{field}` is not a string")
        if not data[field]:
            raise ValueError(f"field `{field}` is empty")
    for field in ("verification_uri", "verification_uri_complete"):
        if data.get(field) is not None and not isinstance(data[field], str):
            raise ValueError(f"field `{field}` is not a string")
    for field in ("expires_in", "interval"):
        if data.get(field) is not None and not jsonutil.is_int(data[field]):
            raise ValueError(f"field `{field}` is not an integer")
    register_secret(data["device_code"])
    return DeviceAuthorization(
        user_code=data["user_code"],
        device_code=data["device_code"],
        verification_uri=data.get("verification_uri"),
        verification_uri_complete=data.get("verification_uri_complete"),
        expires_in=data.get("expires_in"),
        interval=data.get("interval"),
    )


async def start_device_authorization(
    region: Region | str | None = None, *, client: httpx.AsyncClient | None = None
) -> DeviceAuthorization:
    """Spec 3.1 / 4.1 (the core API's name: a region's text is parsed here, at the door)."""
    where = parse_region(region).value  # whose host: the advice names its variable
    ep = endpoints(Region(where))
    url = ep.oauth_host + "/api/oauth/device_authorization"
    async with client_scope(client) as http:
        response = await post_form(
            http, url, {"client_id": client_id()}, identity_headers(), "Device authorization request failed", where
        )
    if not response.ok:
        raise AuthError(
            f"Device authorization failed (HTTP {response.status}): {excerpt(response.text)}",
            server_trouble(url, where) if response.trouble else refused(url, where),
            transient=response.trouble,
        )
    try:
        return parse_device_authorization(response.strict_text())
    except ValueError as exc:
        raise AuthError(f"Failed to parse device authorization response: {excerpt(str(exc))}") from None


async def poll_for_tokens(
    device_code: str,
    interval: int,
    region: Region,
    *,
    client: httpx.AsyncClient | None = None,
    on_status: Callable[[PollStatus], object] | None = None,
    on_request: Callable[[], object] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    deadline: float | None = None,
    first_delay: float = 0.0,
) -> PollResult:
    """Spec 3.2's loop. Returns a terminal status, with the tokens on success (unsaved);
    AuthError for the failed rows.

    `deadline` (on `clock`): when waiting ends with "timeout"; None starts the spec's budget of
    15 minutes. `first_delay`: seconds to wait before the first poll (an attempt taken over from
    another process polls no sooner than one interval after its last poll; a new one polls at
    once, as the spec says). `on_request` is told right before each poll is sent.
    """
    register_secret(device_code)
    url = endpoints(region).oauth_host + "/api/oauth/token"
    current = max(interval if jsonutil.is_int(interval) else MIN_INTERVAL, MIN_INTERVAL)
    deadline = clock() + POLL_BUDGET if deadline is None else deadline
    form = {"grant_type": DEVICE_GRANT, "client_id": client_id(), "device_code": device_code}
    headers = identity_headers()
    if first_delay > 0:
        if clock() + first_delay >= deadline:
            return PollResult(PollStatus("timeout"))
        await sleep(first_delay)
    async with client_scope(client) as http:
        while True:
            if on_request is not None:
                on_request()
            response = await post_form(http, url, form, headers, "Token polling request failed", Region(region).value)
            if response.ok:
                try:
                    tokens = parse_token_response(response.strict_text())
                except ValueError as exc:
                    raise AuthError(f"Failed to parse token response: {excerpt(str(exc))}") from None
                return PollResult(PollStatus("success"), tokens)
            status = _poll_answer(response, url, current, Region(region).value)
            if status.status not in ("pending", "slow_down"):
                return PollResult(status)
            current = status.interval or current
            if on_status is not None:
                on_status(status)
            if clock() + current >= deadline:
                return PollResult(PollStatus("timeout"))
            await sleep(current)


def _poll_answer(response: Response, url: str, current: int, region: str) -> PollStatus:
    """Spec 3.2's rows for a non-success answer: the next status, or AuthError."""
    code = oauth_error_code(response.text)
    if code is None:
        raise AuthError(
            f"Token polling failed (HTTP {response.status}): {excerpt(response.text)}",
            server_trouble(url, region) if response.trouble else refused(url, region),
            transient=response.trouble,
        )
    if code == "authorization_pending":
        return PollStatus("pending", current)
    if code == "slow_down":
        return PollStatus("slow_down", current + SLOW_DOWN_STEP)
    if code == "expired_token":
        return PollStatus("expired")
    if code == "access_denied":
        return PollStatus("access_denied")
    raise AuthError(f"Token polling error ({excerpt(code)}): {excerpt(response.text)}")
