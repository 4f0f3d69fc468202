"""What the agent serves: access tokens, from the same token path as `assistant-auth token` (the
slot's locks shared with the official client, the room reserved before a refresh, a rotation never
lost), and the state of each slot. Requests that arrive together for the same slot and lifetime
share one lookup: a hundred clients with an expired token make one refresh.

A refresh token never leaves this module: an answer is built from `protocol.TOKEN_FIELDS` alone."""

from __future__ import annotations

import asyncio

from tui.core.agent.protocol import EXIT_AGAIN, EXIT_SIGN_IN, EXIT_UNMET, Request, failure, token_answer
from tui.core.credentials.refresh import LifetimeTooShort, get_access_token
from tui.core.credentials.slot import try_load
from tui.core.errors import AuthError
from tui.core.jwt import identity_of
from tui.core.keys import region_of_slot
from tui.core.slots.choice import Selection, explain_for, select, storage_name_of

OUTCOMES = {EXIT_SIGN_IN: "sign in again", EXIT_UNMET: "refused", EXIT_AGAIN: "failed"}  # for the view's lines


class Tokens:
    def __init__(self) -> None:
        self.inflight: dict[tuple[object, ...], asyncio.Task[tuple[bytes, str, str]]] = {}

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
        try:
            chosen = select(**request.selector_values())
            token = await get_access_token(chosen.ref, chosen.base_url, min_ttl=request.min_ttl, refuse=chosen.refusal)
        except AuthError as exc:
            explained = explain_for(exc, chosen)
            code = EXIT_UNMET if isinstance(exc, LifetimeTooShort) else EXIT_AGAIN if exc.transient else EXIT_SIGN_IN
            slot = _slot_or_blank(chosen)
            return failure(explained.message, code, explained.hint), slot, OUTCOMES[code]
        slot = storage_name_of(chosen)
        return token_answer(_fields(slot, token)), slot, "served"


def _slot_or_blank(chosen: Selection | None) -> str:
    try:
        return storage_name_of(chosen) if chosen is not None else ""
    except AuthError:
        return ""


def _fields(slot: str, token: str) -> dict[str, object]:
    """What `token --json` shows of a token: its expiry as the file has it, slot, region, who."""
    stored = try_load(slot) or {}
    expires_at = stored.get("expires_at") if stored.get("access_token") == token else None
    if isinstance(expires_at, bool) or not isinstance(expires_at, (int, float)) or expires_at != expires_at:
        expires_at = None
    return {
        "access_token": token,
        "expires_at": None if expires_at is None else int(expires_at),
        "slot": slot,
        "region": None if (region := region_of_slot(slot)) is None else region.value,
        "identity": identity_of(token),
    }
