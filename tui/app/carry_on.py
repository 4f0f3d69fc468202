"""A sign-in whose terminal went away carries on after the app (a lost terminal means "carry
on"): the code screen's worker stops while no poll is in flight, the attempt goes on in a thread
of its own, on an event loop of its own, and the app ends. The thread ends the process when the
attempt ends (exit status 0 when signed in), whatever the app's shutdown does on a dead terminal."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Sequence

from textual.app import App
from textual.worker import Worker

from tui.core.signin.attempt import SignIn


def carry_on_then_exit(attempt: SignIn) -> None:
    """The sign-in without its terminal, to its end; then the process ends. Nothing is left
    running: the app's thread may be stuck on the dead terminal."""
    code = 1
    try:
        outcome = asyncio.run(attempt.carry_on())
        code = 0 if outcome.success else 1
    finally:
        os._exit(code)


def hand_over(app: App, workers: Sequence[Worker], attempt: SignIn) -> None:
    """Cancel `workers` (idle: nothing in flight), then start the attempt's own thread and end
    the app."""
    for worker in workers:
        worker.cancel()

    async def after_the_workers() -> None:
        while not all(worker.is_finished for worker in workers):  # noqa: ASYNC110 - Textual workers have no awaitable end
            await asyncio.sleep(0.01)
        threading.Thread(target=carry_on_then_exit, args=(attempt,), name="sign-in carries on", daemon=False).start()
        app.exit()

    asyncio.ensure_future(after_the_workers())
