"""`within`: await something for at most so many seconds, and never lose a cancel on the way.

`asyncio.wait_for` on Python 3.10 and 3.11 returns the awaited result when that result and a
cancel of the caller arrive in the same turn of the event loop: the cancel is gone. For a sign-in
that is a SIGTERM, Ctrl+C or Esc sent as a poll's answer arrived, and the attempt went on polling
until its code expired. 3.12 rewrote `wait_for`; `within` behaves the same on every version we
support: the caller's cancel always ends the wait (the awaited work is cancelled and has ended
before `CancelledError` goes on), and a timeout is `asyncio.TimeoutError`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def within(awaitable: Awaitable[T], seconds: float | None) -> T:
    """The result of `awaitable`, or `asyncio.TimeoutError` after `seconds` (None: no limit).
    A cancel of the caller cancels the work, waits for it to end, and is raised."""
    work = asyncio.ensure_future(awaitable)
    try:
        done, _pending = await asyncio.wait({work}, timeout=seconds)
    except asyncio.CancelledError:
        await _stop(work)
        raise
    if not done:
        await _stop(work)
        raise asyncio.TimeoutError
    return work.result()


async def _stop(work: asyncio.Future[T]) -> None:
    """Cancel `work` and wait until it has ended (its own exception, if any, is seen and dropped:
    the caller is told why it stopped waiting, not how the work ended)."""
    work.cancel()
    try:
        await asyncio.wait({work})
    finally:
        if work.done() and not work.cancelled():
            work.exception()  # retrieved: never "Task exception was never retrieved"
