"""The two drivers of a refresh written as steps (`tui.core.credentials.refresh`): the steps
decide everything and yield only their I/O, a `Send` (once) or a `Pause`; a driver performs it and
sends back a `Send`'s response. `drive` runs them without an event loop (the command line, whose
refresh path stays near the floor of a bare script), `drive_async` on one (the library, the TUI).

Both enter the critical section of `tui.core.signals` before the request is sent: its answer is
stored before any signal or cancellation is honoured. On the token hot path: what only one driver
needs (the event loop, HTTP, the signal policy) is imported where it runs, and so is `contextlib`
(the valid-token path imports this module and loads no contextlib: measured by
`tests/test_imports.py`); `time`, always loaded, at the top.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Coroutine, Generator
    from typing import Any

    import httpx

    from tui.core.http import Response

    # a refresh's steps: yield Send or Pause, receive a Send's response, return the access token
    Steps = Generator["Send | Pause", "Response | None", str]


class Send:
    """A step of the refresh: send `form` to `url`; the driver answers with the response."""

    __slots__ = ("url", "form")

    def __init__(self, url: str, form: dict[str, str]) -> None:
        self.url, self.form = url, form


class Pause:
    """A step of the refresh: wait `seconds` (the driver answers with None)."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds


def drive(steps: Steps) -> str:
    """Run the refresh steps without an event loop. From the moment the request is sent until its
    answer is stored, signals wait (`storing_answer`)."""
    import contextlib  # lazy: the valid-token path, which imports this module, loads no contextlib

    from tui.core.http import post_form_sync  # lazy: off token's path
    from tui.core.signals import storing_answer  # lazy: off token's path

    result: Response | None = None
    with contextlib.closing(steps), contextlib.ExitStack() as critical:  # closed: the steps' own cleanup runs now
        while True:
            try:
                step = steps.send(result)
            except StopIteration as done:
                return str(done.value)  # the access token
            if isinstance(step, Send):
                critical.enter_context(storing_answer())
                result = post_form_sync(step.url, step.form, None, "Token refresh request failed")
            else:
                time.sleep(step.seconds)
                result = None


async def drive_async(steps: Steps, client: httpx.AsyncClient | None) -> str:
    """Run the refresh steps on the event loop. Once the request is sent, the rest runs as a task
    of its own that a cancellation of the caller does not abandon: the caller waits for the
    answer to be stored, then is cancelled."""
    import asyncio  # lazy: the event loop's modules, for library and TUI callers only
    import contextlib  # lazy: off token's path

    result: Response | None = None
    with contextlib.closing(steps):  # closed on every exit: the steps' own cleanup runs now
        while True:
            try:
                step = steps.send(result)
            except StopIteration as done:
                return str(done.value)  # the access token
            if isinstance(step, Send):
                return await _to_the_end(_send_and_store(steps, step, client))
            await asyncio.sleep(step.seconds)
            result = None


async def _send_and_store(steps: Steps, send: Send, client: httpx.AsyncClient | None) -> str:
    import asyncio  # lazy: heavy: asyncio

    from tui.core.http import client_scope, post_form  # lazy: off token's path
    from tui.core.signals import storing_answer  # lazy: off token's path

    with storing_answer():
        async with client_scope(client) as http:
            result: Response | None = await post_form(http, send.url, send.form, None, "Token refresh request failed")
        while True:
            try:
                step = steps.send(result)
            except StopIteration as done:
                return str(done.value)
            if isinstance(step, Send):  # pragma: no cover - a refresh sends once
                raise RuntimeError("a second request in one refresh")
            await asyncio.sleep(step.seconds)
            result = None


async def _to_the_end(coroutine: Coroutine[Any, Any, str]) -> str:
    """Await `coroutine` in a task of its own; a cancellation of the caller waits for it to finish
    (its answer stored), then is raised."""
    import asyncio  # lazy: heavy: asyncio

    task = asyncio.ensure_future(coroutine)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled():
                raise
            cancelled = True  # the answer is stored first; the cancellation is honoured after
        except BaseException:  # noqa: BLE001 - the task's own error: raised below, from the task
            break
    if cancelled:
        raise asyncio.CancelledError
    return task.result()
