"""One bound for every wait on a state that a correct run reaches.

A passing test never waits this long: each wait ends the moment its state is there. Only a failing
run waits the bound out, so it is set for the slowest machine the suite runs on (two loaded cores,
eight workers, two other Pythons beside them, a CPU hog), never for a quiet one. A shorter bound
turns a slow machine into a red run: a 10 s wait for the code screen once did, on CI.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

PATIENCE = 60.0

T = TypeVar("T")


def _look(predicate: Callable[[], T], deadline: float, what: str, timeout: float) -> T | None:
    """One look: `predicate()`'s value when truthy, None when not yet, an AssertionError past the
    deadline."""
    value = predicate()
    if value:
        return value
    if time.monotonic() >= deadline:
        raise AssertionError(f"{what} not reached within {timeout:g} s")
    return None


def until(predicate: Callable[[], T], what: str = "the condition", timeout: float = PATIENCE, step: float = 0.02) -> T:
    """The first truthy value of `predicate()`, polled every `step` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := _look(predicate, deadline, what, timeout)):
        time.sleep(step)
    return value


async def until_async(
    predicate: Callable[[], T], what: str = "the condition", timeout: float = PATIENCE, step: float = 0.01
) -> T:
    """`until` for a test that runs an event loop: it sleeps without blocking the loop."""
    deadline = time.monotonic() + timeout
    while not (value := _look(predicate, deadline, what, timeout)):
        await asyncio.sleep(step)
    return value
