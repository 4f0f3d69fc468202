"""The token service: a selector and a minimum lifetime in, `Granted` or `Refused` out, from the
same token path as `assistant-auth token` (the slot's locks shared with the official client, the
room reserved before a refresh, a rotation never lost). Apart from any wire: the agent's server
encodes what it answers (`tui.core.agent.server.tokens`), and any other long-lived face (Home, a
local proxy) can hold one.

Requests that arrive together for the same slot and lifetime share one lookup (single flight): a
hundred clients with an expired token make one refresh. No client drives the person's refresh
traffic (spacing): after the service refreshed a slot, a `min_ttl` that the token it got no longer
meets is not met by another refresh until half that token's lifetime has passed. Such a request is
refused "cannot be met" (exit 2) with `retry_after`; a token below the spec's 30 s is refreshed as
always. A client asking for a token that lives 3598 s of 3600 as fast as it can thus causes one
refresh, not one every two seconds; a client asking for at most half the lifetime (the relay asks
600 s of an hour) never meets it."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Mapping
from typing import Any

from tui.core.credentials.issued import Granted, Refused, from_files
from tui.core.credentials.refresh import get_access_token
from tui.core.credentials.slot import EXPIRY_LEEWAY, expires_at_of, try_load, usable_token
from tui.core.errors import EXIT, EXIT_USAGE, AuthError
from tui.core.slots.choice import Selection, explain_for, select_for, storage_name_of
from tui.core.slots.selector import Selector

Outcome = Granted | Refused


class TokenService:
    """Tokens for selectors, with single flight and refresh spacing held across requests."""

    def __init__(self) -> None:
        self.inflight: dict[tuple[Selector, int | None], asyncio.Task[Outcome]] = {}
        self.refreshed: dict[str, tuple[float, float]] = {}  # slot -> (monotonic time, lifetime it got)

    async def token(self, selector: Selector, min_ttl: int | None) -> Outcome:
        """A token for the slot `selector` names that lives `min_ttl` seconds (the spec's 30 s
        when None), shared with every request for the same pair in flight."""
        key = (selector, min_ttl)
        task = self.inflight.get(key)
        if task is None:
            task = asyncio.ensure_future(self._fetch(selector, min_ttl))
            self.inflight[key] = task
            task.add_done_callback(lambda _done: self.inflight.pop(key, None))
        return await asyncio.shield(task)  # a caller that goes away never cancels a refresh

    async def drain(self) -> None:
        """Until every lookup in flight has ended (a refresh sent is stored before the owner stops)."""
        while self.inflight:
            await asyncio.gather(*list(self.inflight.values()), return_exceptions=True)

    async def _fetch(self, selector: Selector, min_ttl: int | None) -> Outcome:
        chosen: Selection | None = None
        slot, held = "", {}
        try:
            chosen = select_for(selector)
            slot = storage_name_of(chosen)
            held = try_load(slot) or {}
            spaced = self._spaced(slot, held, min_ttl)
            # raised in place of a refresh, at the moment the token path decides one is needed:
            # a token that still meets `min_ttl` then is served; the same clock reading decides both
            refuse = chosen.refusal or (_Spaced(spaced) if spaced is not None else None)
            token = await get_access_token(chosen.ref, chosen.base_url, min_ttl=min_ttl, refuse=refuse)
        except _Spaced as exc:
            return exc.refused
        except AuthError as exc:
            self._note_refresh(slot, held)  # a refresh whose token was still too short (LifetimeTooShort) counts
            return refusal(explain_for(exc, chosen), selector, _slot_or_blank(chosen))
        self._note_refresh(slot, held)
        return from_files(token, slot)

    def _note_refresh(self, slot: str, held: Mapping[str, Any]) -> None:
        """When the slot's file now holds another access token than before, a refresh happened
        (ours, or another client's under the locks): its time and the lifetime it got are noted."""
        now = (try_load(slot) if slot else None) or {}
        token = now.get("access_token")
        if token and token != held.get("access_token"):
            expires_at = expires_at_of(now)  # unknown: lifetime 0, no spacing (never refused on a guess)
            self.refreshed[slot] = (time.monotonic(), 0.0 if expires_at is None else expires_at - time.time())

    def _spaced(self, slot: str, held: Mapping[str, Any], min_ttl: int | None) -> Refused | None:
        """The refusal of a refresh that `min_ttl` alone would cause within half the lifetime of the
        token the last refresh of `slot` got: raised by the token path in place of that refresh,
        only if it finds one needed (a token that meets `min_ttl` when it looks is served); None
        when the request goes its usual way, refresh included."""
        last = self.refreshed.get(slot)
        expires_at = expires_at_of(held)
        if min_ttl is None or last is None or not usable_token(held.get("access_token")) or expires_at is None:
            return None
        since, half = time.monotonic() - last[0], last[1] / 2
        left = expires_at - time.time()
        if since >= half or left < EXPIRY_LEEWAY:
            return None
        wait = max(1, math.ceil(half - since))
        message = (
            f"--min-ttl {min_ttl} cannot be met now: the token was refreshed {int(since)} s ago and has {int(left)} s "
            f"left, and the agent refreshes a slot for --min-ttl at most once in half a token's lifetime "
            f"(ask for at most {int(half)} s, or again in {wait} s)"
        )
        return Refused(message, EXIT_USAGE, slot=slot, retry_after=wait)


class _Spaced(AuthError):
    """The spacing's refusal, carried through the token path as its `refuse` (raised instead of
    sending a refresh)."""

    def __init__(self, refused: Refused) -> None:
        super().__init__(refused.message, kind="spaced")
        self.refused = refused


def refusal(exc: AuthError, selector: Selector, slot: str) -> Refused:
    """`exc`, explained, as a refusal: its kind as `selector` makes it (a named slot with no file
    is an unknown slot), its exit code from that kind."""
    kind = selector.failure_kind(exc.kind)
    code = exc.exit_code if exc.transient else EXIT.get(kind, exc.exit_code)
    return Refused(exc.message, code, str(exc.hint or ""), slot, kind, exc.transient)


def _slot_or_blank(chosen: Selection | None) -> str:
    try:
        return storage_name_of(chosen) if chosen is not None else ""
    except AuthError:
        return ""
