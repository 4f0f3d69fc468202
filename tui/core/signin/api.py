"""The core API's `poll_device_token` for programs that call `tui.core` (shared/design/core-api.md):
the protocol's poll loop, then the one home of saving a sign-in. The app and the command line
run a `tui.core.signin.attempt.SignIn` instead, which saves in its own phase."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from tui.core.signin.protocol import PollStatus, poll_for_tokens
from tui.core.signin.store import save_signin
from tui.core.spec.regions import Region, parse_region

if TYPE_CHECKING:
    import httpx


async def poll_device_token(
    device_code: str,
    interval: int,
    region: Region | str | None = None,
    *,
    client: httpx.AsyncClient | None = None,
    on_status: Callable[[PollStatus], object] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    deadline: float | None = None,
) -> PollStatus:
    """Spec 3.2. Returns a terminal status; AuthError for the failed rows. On success the tokens
    are already persisted and the provider provisioned (spec 4.4); if persisting fails, polling
    fails with the persistence error."""
    where = parse_region(region)
    result = await poll_for_tokens(
        device_code, interval, where, client=client, on_status=on_status, clock=clock, sleep=sleep, deadline=deadline
    )
    if result.tokens is not None:
        await save_signin(result.tokens, where)
    return result.status
