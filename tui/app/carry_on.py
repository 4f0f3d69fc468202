"""A sign-in whose terminal went away carries on after the app (a lost terminal means "carry
on"): the code screen's worker stops while no poll is in flight, the attempt goes on in a thread
of its own, on an event loop of its own, and the app ends. The thread ends the process when the
attempt ends (exit status 0 when signed in), whatever the app's shutdown does on a dead terminal.

The process must not begin to shut down while the attempt runs: an interpreter that does refuses
new work to every executor (the one that resolves a host name among them), so the main thread,
once the app has returned, waits for the attempt (`carried_on`) and never returns itself."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence
from typing import NoReturn

from textual.app import App
from textual.worker import Worker

from tui.core.signin.attempt import SignIn

_carrier: threading.Thread | None = None  # the thread the attempt goes on in, once started


def carry_on_then_exit(attempt: SignIn) -> NoReturn:
    """The sign-in without its terminal, to its end; then the process ends. Nothing is left
    running: the app's thread may be stuck on the dead terminal. Whatever goes wrong, the
    attempt ends with an outcome on its record, never "pending" with nobody polling."""
    code = 1
    try:
        outcome = asyncio.run(attempt.carry_on())
        code = 0 if outcome.success else 1
    except BaseException as exc:  # noqa: BLE001 - even an event loop that cannot start ends the record
        attempt.end_unexpectedly(exc)
    finally:
        os._exit(code)


def hand_over(app: App, workers: Sequence[Worker], attempt: SignIn) -> None:
    """Cancel `workers` (idle: nothing in flight), then start the attempt's own thread and end
    the app."""
    for worker in workers:
        worker.cancel()

    async def after_the_workers() -> None:
        global _carrier
        while not all(worker.is_finished for worker in workers):  # noqa: ASYNC110 - Textual workers have no awaitable end
            await asyncio.sleep(0.01)
        _carrier = threading.Thread(target=carry_on_then_exit, args=(attempt,), name="sign-in carries on")
        _carrier.start()
        app.exit()

    asyncio.ensure_future(after_the_workers())


def carried_on(attempt: SignIn) -> NoReturn:
    """The app has returned with a detached sign-in: this thread waits while the attempt goes on
    (its thread ends the process), or, when the app ended before handing it over, runs it here."""
    carrier = _carrier
    if carrier is None:
        carry_on_then_exit(attempt)
    carrier.join()
    os._exit(1)  # pragma: no cover - the carrier ends the process first
