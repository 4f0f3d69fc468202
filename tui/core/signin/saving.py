"""Approved tokens on their way into the slot (spec 4.4, through `store.save_signin`).

An approval consumes the device code, so its tokens are kept until they are saved. While a
terminal shows the attempt, the wait for the slot's locks has no bound (it says what it waits
for and ends only by cancellation); once the terminal has gone, nobody can be asked, so the wait
gets a bound. When that happens in the middle of a wait, the wait restarts with the bound.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from tui.core.config.kept import Kept
from tui.core.credentials.locks import reporting_to
from tui.core.errors import AuthError, Problem
from tui.core.signin import kept
from tui.core.signin.store import save_signin_keeping, slot_of
from tui.core.spec.keys import login_command
from tui.core.spec.regions import Region
from tui.core.text.phrase import N_, Phrase


class Approval:
    """The tokens of one approval, until `save()` has stored them."""

    def __init__(
        self, tokens: Mapping[str, Any], region: Region, on_wait: Callable[[str], object], account: str | None = None
    ) -> None:
        self.tokens = dict(tokens)
        self.region = region
        self.account = account  # the named account they go to (None: the region's own slot)
        self.on_wait = on_wait  # "Waiting for …" lines while the slot's locks are held elsewhere
        self.bound: float | None = None  # seconds the wait for the locks may take (None: no bound)
        self._task: asyncio.Future[tuple[str, Kept | None]] | None = None
        self._rebound = False  # the wait in progress was cancelled to restart it with the bound
        self.config_copy: Kept | None = None  # config.toml kept before its api_key was emptied

    def bind(self, seconds: float) -> None:
        """Nobody watches any more: wait at most `seconds` for the locks, a wait in progress too."""
        self.bound = seconds
        if self._task is not None and not self._task.done():
            self._rebound = True
            self._task.cancel()

    async def save(self) -> str:
        """Save under the slot's locks; returns the storage name."""
        with reporting_to(self.on_wait):
            while True:
                self._task = asyncio.ensure_future(
                    save_signin_keeping(self.tokens, self.region, timeout=self.bound, account=self.account)
                )
                try:
                    name, self.config_copy = await self._task
                    return name
                except asyncio.CancelledError:
                    if not self._rebound:
                        raise
                    self._rebound = False
                except AuthError as exc:
                    if self.bound is not None and exc.kind == Problem.LOCKED:
                        raise self._kept(f"the slot was locked ({exc.message})") from None
                    if exc.kind == Problem.NOT_STORED:  # the slot's file could not be written after all
                        raise self._kept(exc.message) from None
                    raise

    def _kept(self, why: str) -> AuthError:
        """The approval could not be stored: its tokens are kept where the next sign-in of the
        slot finds them (an approval consumes the code: they are the only way back without one)."""
        slot = slot_of(self.region, self.account)
        where = kept.keep(self.tokens, slot)
        if where is None:
            return AuthError(f"approved but could not be saved: {why}")
        hint = Phrase(
            N_(
                "The approved tokens are kept in {path} (yours alone): once that is fixed, `{command}` saves them without a new code."
            ),
            path=where,
            command=login_command(slot),
        )
        return AuthError(f"approved but could not be saved: {why}", hint)
