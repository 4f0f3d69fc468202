"""A change that may wait for a lock (a slot's, config.toml's) runs in a worker, never on the
screen's event loop: the screen keeps drawing and taking keys, the wait is said on its notice line
(for whom, since when: the core's own words), and Esc stops waiting, nothing changed. Used by the
inspector (logout, move aside, fix mode, switch), the provider editor (save, restore), Home's
switch and Doctor's repairs."""

from __future__ import annotations

import threading
from collections.abc import Callable

from tui.app.widgets.safe import PlainStatic
from tui.core.credentials.locks import STOPPED_WAITING, cancellable, reporting_to
from tui.core.credentials.repairs import NotDone
from tui.core.errors import AuthError
from tui.core.text.i18n import _
from tui.core.text.phrase import said
from tui.core.text.untrusted import one_line


class WaitsInAWorker:
    """For a Textual screen with a `notice(text)` line: `start_change`, and `stop_waiting` for Esc."""

    NOTICE_LINE = "#notice"  # the screen's notice line (a PlainStatic), hidden (class "none") when empty
    change_stop: threading.Event | None = None  # set: the change in hand stops waiting for its lock

    def notice(self, text: str) -> None:
        if self.is_attached:  # type: ignore[attr-defined] # a lock wait's report may come after the person left
            line = self.query_one(self.NOTICE_LINE, PlainStatic)  # type: ignore[attr-defined]
            line.set_text(text)
            line.set_class(not text, "none")

    def start_change(self, operation: Callable[[], object], finished: Callable[[object], None]) -> None:
        """Run `operation` in a thread; `finished(result or the exception it raised)` back on the
        screen's loop, the wait's line gone. One change at a time; what the screen offers (Esc's
        stop) follows whether one is in hand."""
        if self.change_stop is not None:
            self.notice(_("Still working on the last change: Esc stops its wait."))
            return
        stop = self.change_stop = threading.Event()
        app = self.app  # type: ignore[attr-defined]

        def say(text: str) -> None:
            app.call_from_thread(self.notice, one_line(text, 1000) + " " + _("(Esc stops waiting)"))

        def work() -> None:
            outcome: object
            with reporting_to(say), cancellable(stop):
                try:
                    outcome = operation()
                except Exception as exc:  # noqa: BLE001 - handed back whole: the screen says it
                    outcome = exc
            app.call_from_thread(self._change_done, outcome, finished)

        self.run_worker(work, thread=True, group="change", exit_on_error=False)  # type: ignore[attr-defined]
        self.refresh_bindings()  # type: ignore[attr-defined]

    def _change_done(self, outcome: object, finished: Callable[[object], None]) -> None:
        self.change_stop = None
        self.notice("")  # the wait is over: what it ended with is said by `finished`
        if self.is_attached:  # type: ignore[attr-defined]
            self.refresh_bindings()  # type: ignore[attr-defined]
        finished(outcome)

    def action_stop_wait(self) -> None:
        self.stop_waiting()

    def stop_waiting(self) -> bool:
        """Esc while a change waits: it stops (True); nothing in hand (False)."""
        if self.change_stop is None:
            return False
        self.change_stop.set()
        self.notice(_("Stopping the wait…"))
        return True


def stopped_line(outcome: object) -> str | None:
    """The line for a change whose wait the person stopped (Esc), in their language; else None.
    `outcome`: what the change ended with, or the reason a repair recorded (`Check.repair_failed`)."""
    message = outcome.message if isinstance(outcome, AuthError) else outcome
    if message == STOPPED_WAITING:
        return _(STOPPED_WAITING) + "."
    return None


def trouble_line(outcome: object, failure: str) -> str | None:
    """What a change's failure says on the notice line (None: it succeeded): a repair whose fact
    changed, the wait stopped by Esc, a lock or a file that failed (`failure` with the reason)."""
    if isinstance(outcome, NotDone):
        return _("Not done: {reason}").format(reason=said(outcome.reason))
    if isinstance(outcome, AuthError):
        return stopped_line(outcome) or failure.format(reason=outcome.said())
    if isinstance(outcome, OSError):
        return failure.format(reason=outcome.strerror or outcome)
    if isinstance(outcome, BaseException):
        raise outcome
    return None
