"""What the agent serves of tokens: the token service's answers (`tui.core.tokens.service`:
single flight, refresh spacing, the slot's locks shared with the official client) encoded for the
wire, and nothing decided here. A refresh token never reaches this module: a grant's
`fields()` are `protocol.TOKEN_FIELDS` alone."""

from __future__ import annotations

from tui.core.agent.wire.causes import cause_of
from tui.core.agent.wire.protocol import EXIT_AGAIN, EXIT_UNMET, Request, failure, token_answer
from tui.core.credentials.issued import Granted
from tui.core.errors import EXIT_SIGN_IN
from tui.core.tokens.service import TokenService

OUTCOMES = {EXIT_SIGN_IN: "sign in again", EXIT_UNMET: "refused", EXIT_AGAIN: "failed"}  # for the view's lines


class Tokens:
    """The agent's side of the token service: one service for the agent's life."""

    def __init__(self, service: TokenService | None = None) -> None:
        self.service = service or TokenService()

    async def token(self, request: Request) -> tuple[bytes, str, str]:
        """(the answer line, the slot, the outcome in a word) for a token request."""
        got = await self.service.token(request.selector, request.min_ttl)
        if isinstance(got, Granted):
            return token_answer(got.fields()), got.slot, "served"
        cause = cause_of(got.kind, got.transient)
        line = failure(got.message, got.code, got.hint, retry_after=got.retry_after, cause=cause)
        return line, got.slot, OUTCOMES.get(got.code, "failed")

    async def drain(self) -> None:
        """Until every lookup in flight has ended (a refresh sent is stored before the agent stops)."""
        await self.service.drain()
