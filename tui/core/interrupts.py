"""What an interrupt means while tokens are in flight, decided in one place.

Ctrl+C (SIGINT) and SIGTERM mean "stop and discard"; a lost terminal (SIGHUP) ends the process
too, except for a pending sign-in (see `tui.core.signin`). One rule overrides them all: once a
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
import signal
import sys
import threading
from collections.abc import Iterator

FINISHING = "finishing the refresh so your session is kept…"
DEFERRED = tuple(s for s in (getattr(signal, name, None) for name in ("SIGINT", "SIGTERM", "SIGHUP")) if s is not None)

_lock = threading.Lock()
_depth = 0
_pending: list[int] = []
_saved: dict[int, object] = {}


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


def pending_count() -> int:
    """For tests: signals held right now."""
    with _lock:
        return len(_pending)
