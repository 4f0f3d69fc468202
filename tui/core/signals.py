"""The one signal policy: what Ctrl+C, SIGTERM and a lost terminal mean, decided in one module.
No other product module sets a signal disposition; the faces and the core call these.

- **A sign-in** (`SignInSignals`, both faces): Ctrl+C and SIGTERM mean "discard"; a lost terminal
  (SIGHUP) means "carry on" once the code is shown (else the process ends as it always did);
  once the approval is in and its tokens wait for the slot's locks, a first Ctrl+C only warns
  (`confirm_interrupts`).
- **Around `exec`'s child** (`forwarding_to`): Ctrl+C reaches the child from the terminal (ours
  is ignored), SIGTERM is forwarded to it; a replaced process starts with the dispositions a
  shell gives (`shell_dispositions`).
- **Locks** (`on_deadly_signal`, `deaths_held`): directory locks are removed before a deadly
  signal ends the process, and none is ever made in a moment where a dying process would leave it.
- **The demo server** (`until_stopped`) and the synchronous HTTP budget (`alarm`).
- **A refresh's critical section** (`storing_answer`), which overrides all of the above: once a
refresh request is sent, the server has already rotated the refresh token, so receiving and
storing its answer is one critical section. A signal that arrives inside it is held until the
answer is stored (or the request's own 10 s budget ends), then delivered as it would have been:
the process ends with that signal's exit status, and the rotated token is on disk.

`storing_answer()` is that critical section. It may be entered from any thread; the signal
handlers live in the main thread (Python delivers signals there), so they are installed when
the main thread enters, and a section entered elsewhere is protected by the handlers of the
main thread's section, or by the main thread itself finishing last (worker threads are joined
before the interpreter exits).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from types import FrameType
    from typing import Any

FINISHING = "finishing the refresh so your session is kept…"
DEFERRED = tuple(s for s in (getattr(signal, name, None) for name in ("SIGINT", "SIGTERM", "SIGHUP")) if s is not None)

_lock = threading.Lock()
_depth = 0
_pending: list[int] = []
_saved: dict[int, Callable[[int, FrameType | None], Any] | int | None] = {}


def _hold(signum: int, frame: object) -> None:
    """A signal inside the critical section: remembered, said (for Ctrl+C), delivered later."""
    with _lock:
        if _depth == 0:  # the section ended between the signal and this handler: act now
            deliver = True
        else:
            deliver = False
            if signum not in _pending:
                _pending.append(signum)
    if deliver:
        _deliver(signum)
        return
    if signum == getattr(signal, "SIGINT", None):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.write(f"\n{FINISHING}\n")
            sys.stderr.flush()


def _deliver(signum: int) -> None:
    """Act on a signal as the handler in place would have (the default one ends the process)."""
    signal.raise_signal(signum)


@contextlib.contextmanager
def storing_answer() -> Iterator[None]:
    """The critical section around a sent refresh request and the storing of its answer."""
    global _depth
    main = threading.current_thread() is threading.main_thread()
    with _lock:
        _depth += 1
        outermost = _depth == 1
    installed = False
    if main and outermost:
        for signum in DEFERRED:
            with contextlib.suppress(ValueError, OSError):
                previous = signal.getsignal(signum)
                if previous == signal.SIG_IGN:  # ignored on purpose (nohup, a background job): stays so
                    continue
                _saved[signum] = previous
                signal.signal(signum, _hold)
        installed = True
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            last = _depth == 0
            pending = list(_pending) if last else []
            if last:
                _pending.clear()
        if installed:
            for signum, previous in list(_saved.items()):
                with contextlib.suppress(ValueError, OSError, TypeError):
                    signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
            _saved.clear()
        for signum in pending[:1]:  # the first one decides how the process ends
            _deliver(signum)


def storing() -> bool:
    """A sent refresh request's answer is being stored right now (in any thread or task): whatever
    ends the process waits for it (the app's exit too)."""
    with _lock:
        return _depth > 0


def pending_count() -> int:
    """For tests: signals held right now."""
    with _lock:
        return len(_pending)


# -- a sign-in ---------------------------------------------------------------------------------------

_NOT_HERE = (NotImplementedError, RuntimeError, ValueError, AttributeError)  # no loop signals here


class SignInSignals:
    """While a sign-in runs on the event loop: SIGTERM calls `discard` (as Ctrl+C or Esc do);
    SIGHUP calls `lost_terminal`, which returns True when the attempt carries on without the
    terminal (then further SIGHUPs are ignored), else the process ends as a lost terminal ends it."""

    def __init__(self, *, discard: Callable[[], object], lost_terminal: Callable[[], bool]) -> None:
        self.discard = discard
        self.lost_terminal = lost_terminal
        self.carried_on = False

    def install(self) -> None:
        import asyncio  # lazy: only commands that run an event loop get here

        with contextlib.suppress(*_NOT_HERE):
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGHUP, self._hangup)
            loop.add_signal_handler(signal.SIGTERM, self.discard)

    def remove(self) -> None:
        import asyncio  # lazy: heavy: asyncio

        with contextlib.suppress(*_NOT_HERE):
            loop = asyncio.get_running_loop()
            if not self.carried_on:
                loop.remove_signal_handler(signal.SIGHUP)
            loop.remove_signal_handler(signal.SIGTERM)

    def _hangup(self) -> None:
        if self.lost_terminal():
            self.carried_on = True
            return
        end_as_hangup()


def end_as_hangup() -> None:
    """The terminal is gone and nothing carries on: end as SIGHUP's default ends a process."""
    import asyncio  # lazy: heavy: asyncio

    with contextlib.suppress(*_NOT_HERE):
        asyncio.get_running_loop().remove_signal_handler(signal.SIGHUP)
    signal.raise_signal(signal.SIGHUP)


def ignore_hangup() -> None:
    """The terminal went away and the process carries on: later SIGHUPs change nothing."""
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)


def confirm_interrupts(on_second: Callable[[], object], warn: Callable[[], object], within: float = 5.0) -> None:
    """From now on a first Ctrl+C only calls `warn`; a second within `within` seconds calls
    `on_second` (which discards)."""
    import asyncio  # lazy: heavy: asyncio

    pressed: list[float] = []

    def on_sigint() -> None:
        now = time.monotonic()
        if pressed and now - pressed[-1] <= within:
            on_second()
            return
        pressed.append(now)
        warn()

    with contextlib.suppress(*_NOT_HERE):
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, on_sigint)


# -- exec's child --------------------------------------------------------------------------------------

_SHELL_DEFAULTS = tuple(s for s in (getattr(signal, n, None) for n in ("SIGPIPE", "SIGXFSZ")) if s is not None)


@contextlib.contextmanager
def shell_dispositions() -> Iterator[None]:
    """Around `execvp`: the signals Python ignores are reset, so a replaced process starts as from
    a shell; if the exec fails we are still us, and Python's dispositions come back."""
    for signum in _SHELL_DEFAULTS:
        signal.signal(signum, signal.SIG_DFL)
    try:
        yield
    finally:
        for signum in _SHELL_DEFAULTS:
            signal.signal(signum, signal.SIG_IGN)


@contextlib.contextmanager
def forwarding_to(send: Callable[[int], object]) -> Iterator[None]:
    """While a child runs: Ctrl+C is the child's (the terminal delivers it to both; ours is
    ignored), SIGTERM is forwarded with `send`."""
    previous_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
    previous_term = signal.signal(signal.SIGTERM, lambda signum, frame: send(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous_int)
        signal.signal(signal.SIGTERM, previous_term)


# -- the token agent ------------------------------------------------------------------------------------


def stop_agent_on_signals(stop: Callable[[], object]) -> None:
    """A token agent: SIGTERM, SIGHUP and Ctrl+C each ask it to stop (on the running event loop;
    it finishes what is in flight, so a refresh already sent is stored)."""
    import asyncio  # lazy: only commands that run an event loop get here

    loop = asyncio.get_running_loop()
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        if hasattr(signal, name):
            loop.add_signal_handler(getattr(signal, name), stop)


def stop_relay_on_signals(stop: Callable[[], object]) -> None:
    """The relay (a synchronous loop in the main thread): SIGTERM, SIGHUP and Ctrl+C each ask it
    to stop after the write in hand (a write is atomic and under the slot's locks)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), lambda *_args: stop())


# -- the demo server --------------------------------------------------------------------------------


def until_stopped(ready: Callable[[], None] = lambda: None) -> None:
    """Block until Ctrl+C, SIGTERM or a closed terminal (SIGHUP). `ready` runs once they are
    caught: what it says (how to stop) is never followed by a signal that finds them uncaught."""

    def stop(*_args: object) -> None:
        raise KeyboardInterrupt

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), stop)
    try:
        ready()
        while True:
            # short sleeps: a signal the kernel hands to another thread (the server's) runs its
            # Python handler only once this thread is back in the interpreter
            time.sleep(0.25)
    except KeyboardInterrupt:
        pass


# -- a synchronous exchange's whole budget -------------------------------------------------------------


@contextlib.contextmanager
def alarm(seconds: float, expired: Callable[[], None]) -> Iterator[bool]:
    """In the main thread, `expired` is called (and may raise) when `seconds` have passed; yields
    False where no interval timer can be used (another thread, no setitimer)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield False
        return

    def on_alarm(signum: int, frame: object) -> None:
        expired()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# -- locks: nothing is left behind by a deadly signal ----------------------------------------------------

_DEATHS = tuple(s for s in (getattr(signal, n, None) for n in ("SIGTERM", "SIGHUP", "SIGINT")) if s is not None)
_cleanups: list[Callable[[], None]] = []
_previous: dict[int, object] = {}


def on_deadly_signal(cleanup: Callable[[], None]) -> None:
    """Run `cleanup` before SIGTERM or SIGHUP ends the process (installed once, from the main
    thread; a signal ignored on purpose stays ignored, and a handler of the program's own keeps
    deciding: an exit it raises unwinds through the callers)."""
    if cleanup not in _cleanups:
        _cleanups.append(cleanup)
    if threading.current_thread() is not threading.main_thread():
        return
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        with contextlib.suppress(ValueError, OSError):
            current = signal.getsignal(signum)
            if current is _on_deadly or current == signal.SIG_IGN:
                continue
            _previous[signum] = current
            signal.signal(signum, _on_deadly)


def _on_deadly(signum: int, frame: object) -> None:
    previous = _previous.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
        return
    for cleanup in list(_cleanups):
        cleanup()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


@contextlib.contextmanager
def deaths_held() -> Iterator[None]:
    """SIGTERM, SIGHUP and SIGINT wait (in the main thread) while the block runs: no moment where
    something exists that a dying process would leave behind."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, set(_DEATHS))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
