"""How a wait for a slot's or config.toml's lock is said and stopped, for every waiter: where
its "waiting for …" line goes (`reporting_to`: a screen's notice line; else stderr), how long a
refresh waits (`lock_timeout`, `ASSISTANT_LOCK_TIMEOUT`), and a wait a screen's Esc ends at once
(`cancellable`, `pause`)."""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator

from tui.core.errors import AuthError, Problem
from tui.core.text.phrase import N_

DEFAULT_TIMEOUT = 30.0  # seconds a refresh waits for the locks before it fails closed
TIMEOUT_ENV = "ASSISTANT_LOCK_TIMEOUT"

Reporter = Callable[[str], object]
_reporter: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar("assistant_lock_reporter", default=None)


def lock_timeout() -> float:
    """The bounded wait of a refresh, from `ASSISTANT_LOCK_TIMEOUT` (seconds), else 30."""
    raw = os.environ.get(TIMEOUT_ENV, "").strip()
    try:
        value = float(raw) if raw else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value == value and 0 < value < 86400 else DEFAULT_TIMEOUT  # NaN, absurd -> default


@contextlib.contextmanager
def reporting_to(report: Reporter) -> Iterator[None]:
    """Send "waiting for …" lines of this context (a task, a worker) to `report`."""
    token = _reporter.set(report)
    try:
        yield
    finally:
        _reporter.reset(token)


_cancel: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar("assistant_lock_cancel", default=None)
STOPPED_WAITING = N_("Stopped waiting for the lock: nothing was changed")


@contextlib.contextmanager
def cancellable(event: threading.Event) -> Iterator[None]:
    """A synchronous wait for a lock in this context (a screen's worker) ends as soon as `event`
    is set: AuthError (`STOPPED_WAITING`), nothing changed."""
    token = _cancel.set(event)
    try:
        yield
    finally:
        _cancel.reset(token)


def pause(delay: float) -> None:
    """Sleep `delay` seconds between attempts at a lock, or stop at once when the wait was
    cancelled (`cancellable`)."""
    event = _cancel.get()
    if event is None:
        time.sleep(delay)
    elif event.wait(delay) or event.is_set():
        raise AuthError(STOPPED_WAITING, kind=Problem.LOCKED)


def report_wait(text: str) -> None:
    """Say what a wait is for: where `reporting_to` sends it (a screen's notice line), else stderr."""
    _report(text)


def _report(text: str) -> None:
    report = _reporter.get()
    if report is not None:
        report(text)
        return
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
