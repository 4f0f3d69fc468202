"""What the agent serves: access tokens, from the same token path as `assistant-auth token` (the
slot's locks shared with the official client, the room reserved before a refresh, a rotation never
lost), and the state of each slot. Requests that arrive together for the same slot and lifetime
share one lookup: a hundred clients with an expired token make one refresh.

No client drives the person's refresh traffic (`spacing`): after the agent refreshed a slot, a
`min_ttl` that the token it got no longer meets is not met by another refresh until half that
token's lifetime has passed. Such a request is answered "cannot be met" (exit 2) with
`retry_after`; a token below the spec's 30 s is refreshed as always. A client asking for a token
that lives 3598 s of 3600 as fast as it can thus causes one refresh, not one every two seconds;
a client asking for at most half the lifetime (the relay asks 600 s of an hour) never meets it.

A refresh token never leaves this module: an answer is built from `protocol.TOKEN_FIELDS` alone."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Mapping
from typing import Any

from tui.core.agent.wire.causes import cause_of
from tui.core.agent.wire.protocol import EXIT_AGAIN, EXIT_UNMET, Request, failure, token_answer
from tui.core.credentials.refresh import get_access_token
from tui.core.credentials.slot import EXPIRY_LEEWAY, try_load, usable_token
from tui.core.credentials.valid import required_ttl
from tui.core.errors import EXIT, EXIT_SIGN_IN, AuthError
from tui.core.jwt import identity_of
from tui.core.keys import region_of_slot
from tui.core.slots.choice import Selection, explain_for, select, storage_name_of

OUTCOMES = {EXIT_SIGN_IN: "sign in again", EXIT_UNMET: "refused", EXIT_AGAIN: "failed"}  # for the view's lines


class Tokens:
    def __init__(self) -> None:
        self.inflight: dict[tuple[object, ...], asyncio.Task[tuple[bytes, str, str]]] = {}
        self.refreshed: dict[str, tuple[float, float]] = {}  # slot -> (monotonic time, lifetime it got)

    async def token(self, request: Request) -> tuple[bytes, str, str]:
        """(the answer line, the slot, the outcome in a word) for a token request."""
        key = (request.selector, request.min_ttl)
        task = self.inflight.get(key)
        if task is None:
            task = asyncio.ensure_future(self._fetch(request))
            self.inflight[key] = task
            task.add_done_callback(lambda _done: self.inflight.pop(key, None))
        return await asyncio.shield(task)  # a client that goes away never cancels a refresh

    async def drain(self) -> None:
        """Until every lookup in flight has ended (a refresh sent is stored before the agent stops)."""
        while self.inflight:
            await asyncio.gather(*list(self.inflight.values()), return_exceptions=True)

    async def _fetch(self, request: Request) -> tuple[bytes, str, str]:
        chosen: Selection | None = None
        slot, held = "", {}
        try:
            chosen = select(**request.selector.given())
            slot = storage_name_of(chosen)
            held = try_load(slot) or {}
            refused = self._spaced(slot, held, request.min_ttl)
            if refused is not None:
                return refused, slot, OUTCOMES[EXIT_UNMET]
            token = await get_access_token(chosen.ref, chosen.base_url, min_ttl=request.min_ttl, refuse=chosen.refusal)
        except AuthError as exc:
            self._note_refresh(slot, held)  # a refresh whose token was still too short (LifetimeTooShort) counts
            explained = explain_for(exc, chosen)
            cause = cause_of(exc, request.selector)
            code = EXIT[cause] if cause is not None else exc.exit_code  # one table for every side
            slot = _slot_or_blank(chosen)
            return failure(explained.message, code, explained.hint, cause=cause), slot, OUTCOMES[code]
        stored = self._note_refresh(slot, held)
        return token_answer(_fields(slot, token, stored)), slot, "served"

    def _note_refresh(self, slot: str, held: Mapping[str, Any]) -> Mapping[str, Any]:
        """The slot's file as the lookup left it; when it holds another access token than before,
        a refresh happened (ours, or another client's under the locks): its time and the lifetime
        it got are noted."""
        now = (try_load(slot) if slot else None) or {}
        token = now.get("access_token")
        if token and token != held.get("access_token"):
            expires_at = _expiry(now)  # unknown: lifetime 0, no spacing (a request is never refused on a guess)
            self.refreshed[slot] = (time.monotonic(), 0.0 if expires_at is None else expires_at - time.time())
        return now

    def _spaced(self, slot: str, held: Mapping[str, Any], min_ttl: int | None) -> bytes | None:
        """The refusal of a refresh that `min_ttl` alone would cause within half the lifetime of the
        token the agent's last refresh of `slot` got; None when the request goes its usual way."""
        last = self.refreshed.get(slot)
        expires_at = _expiry(held)
        if min_ttl is None or last is None or not usable_token(held.get("access_token")) or expires_at is None:
            return None
        since, half = time.monotonic() - last[0], last[1] / 2
        left = expires_at - time.time()
        if since >= half or left < EXPIRY_LEEWAY or left >= required_ttl(min_ttl):
            return None
        wait = max(1, math.ceil(half - since))
        message = (
            f"--min-ttl {min_ttl} cannot be met now: the token was refreshed {int(since)} s ago and has {int(left)} s "
            f"left, and the agent refreshes a slot for --min-ttl at most once in half a token's lifetime "
            f"(ask for at most {int(half)} s, or again in {wait} s)"
        )
        return failure(message, EXIT_UNMET, retry_after=wait)


def _slot_or_blank(chosen: Selection | None) -> str:
    try:
        return storage_name_of(chosen) if chosen is not None else ""
    except AuthError:
        return ""


def _expiry(stored: Mapping[str, Any]) -> float | None:
    """A slot file's `expires_at` when it is a number (not a bool, not NaN); None otherwise."""
    expires_at = stored.get("expires_at")
    if isinstance(expires_at, bool) or not isinstance(expires_at, (int, float)) or expires_at != expires_at:
        return None
    return float(expires_at)


def _fields(slot: str, token: str, stored: Mapping[str, Any]) -> dict[str, object]:
    """What `token --json` shows of a token: its expiry as the file (`stored`, read after the
    lookup) has it, slot, region, who."""
    expires_at = _expiry(stored) if stored.get("access_token") == token else None
    return {
        "access_token": token,
        "expires_at": None if expires_at is None else int(expires_at),
        "slot": slot,
        "region": None if (region := region_of_slot(slot)) is None else region.value,
        "identity": identity_of(token),
    }
