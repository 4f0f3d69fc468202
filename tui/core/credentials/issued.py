"""A token handed out, or refused, as values: what the token service (`tui.core.tokens.service`), the files' path
of `token` and the agent's server all answer with. `Granted.record()` is the one `token --json`
record, whoever gave the token (this machine's files or an agent); `Granted.fields()` is what an
agent's answer carries of it. Neither ever holds a refresh token.

On `token --json`'s path only: plain `time` at the top, the slot's reader when a record is made."""

from __future__ import annotations

import time

TYPE_CHECKING = False  # not `from typing import`: on `token --json`'s path
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping
    from typing import Any

SCHEMA_VERSION = 1  # of `token --json`


class Granted:
    """An access token for `slot`, with its expiry as the slot's file has it (None: unknown or
    none), its region and who it is (as the side that read the slot says them: this machine, or
    the agent with its own settings); `agent`: an agent gave it (the record says so)."""

    __slots__ = ("agent", "expires_at", "identity", "region", "slot", "token")

    def __init__(
        self,
        token: str,
        slot: str,
        expires_at: float | None,
        region: str | None,
        identity: str | None,
        agent: bool = False,
    ) -> None:
        self.token = token
        self.slot = slot
        self.expires_at = expires_at
        self.region = region
        self.identity = identity
        self.agent = agent

    def fields(self) -> dict[str, object]:
        """What an agent's token answer carries (`protocol.TOKEN_FIELDS`)."""
        return {
            "access_token": self.token,
            "expires_at": None if self.expires_at is None else int(self.expires_at),
            "slot": self.slot or None,
            "region": self.region,
            "identity": self.identity,
        }

    def record(self, now: float | None = None) -> dict[str, object]:
        """`token --json`: the token with its expiry, the seconds left `now` (not the file's
        `expires_in`), and which slot, region and account it is."""
        from tui.core.spec.keys import account_of_slot  # lazy: off token's valid path

        current = time.time() if now is None else now
        named = account_of_slot(self.slot) if self.slot else None
        record: dict[str, object] = {
            "schema_version": SCHEMA_VERSION,
            "access_token": self.token,
            "expires_at": None if self.expires_at is None else int(self.expires_at),
            "expires_in": None if self.expires_at is None else int(self.expires_at - current),
            "region": self.region,
            "slot": self.slot or None,
            "account": named.name if named is not None else None,
            "identity": self.identity,
        }
        if self.agent:
            record["agent"] = True
        return record


def from_files(token: str, slot: str) -> Granted:
    """`token` of `slot` as this machine's files hold it now: its expiry when the file still holds
    that token (read after the lookup, so a refresh's new expiry), else unknown; its region by this
    machine's settings, and who it is from its claims."""
    from tui.core.credentials.jwt import identity_of  # lazy: off token's valid path
    from tui.core.credentials.slot import expires_at_of, try_load  # lazy: off token's valid path
    from tui.core.spec.keys import region_of_slot  # lazy: off token's valid path

    stored = try_load(slot) or {}
    expires_at = expires_at_of(stored) if stored.get("access_token") == token else None
    region = region_of_slot(slot) if slot else None
    return Granted(token, slot, expires_at, None if region is None else region.value, identity_of(token))


def from_answer(answer: Mapping[str, Any], token: str) -> Granted:
    """An agent's token answer as a grant: its slot, expiry, region and identity when they are of
    their types (the region as the agent's settings say it: this machine's may name no such slot)."""
    from tui.core.credentials.slot import expires_at_of  # lazy: off token's valid path

    slot, region, identity = (answer.get(name) for name in ("slot", "region", "identity"))
    return Granted(
        token,
        slot if isinstance(slot, str) else "",
        expires_at_of(answer),
        region if isinstance(region, str) else None,
        identity if isinstance(identity, str) else None,
        agent=True,
    )


class Refused:
    """No token: the message and hint as the core words them, the exit code (`errors.EXIT`),
    the failure's kind and whether it is transient (for the agent's `cause`), seconds after
    which the same request can be met, and the slot it was for ("" when none was chosen)."""

    __slots__ = ("code", "hint", "kind", "message", "retry_after", "slot", "transient")

    def __init__(
        self,
        message: str,
        code: int,
        hint: str = "",
        slot: str = "",
        kind: str | None = None,
        transient: bool = False,
        retry_after: int | None = None,
    ) -> None:
        self.message = message
        self.code = code
        self.hint = hint
        self.slot = slot
        self.kind = kind
        self.transient = transient
        self.retry_after = retry_after
