"""Restoring a broken config.toml from its last good copy, asked in the wizard: the repair of
`tui.core.config.restore` (doctor offers the same one), its diff shown first."""

from __future__ import annotations

import pathlib
from collections.abc import Callable

from textual.app import App

from tui.app.screens.confirm import ConfirmScreen
from tui.core.config.restore import restore_offer
from tui.core.credentials.locks import STOPPED_WAITING
from tui.core.credentials.repairs import NotDone
from tui.core.errors import AuthError
from tui.core.text.i18n import _
from tui.core.text.phrase import said
from tui.core.text.untrusted import one_line

Runner = Callable[[Callable[[], object], Callable[[object], None]], None]


def ask_to_restore(
    app: App, path: pathlib.Path | None, done: Callable[[str | None], None], run: Runner | None = None
) -> None:
    """Show what restoring changes (seen now, not when the screen loaded), ask, restore; `done`
    gets what was done, or None when there was nothing to restore any more. A restore the re-check
    stops is said in a toast, and nothing changes. `run`: how the restore runs (a screen's worker:
    it waits for config.toml's lock), else here."""
    restore = restore_offer(path)
    if restore is None:
        done(None)
        return
    repair = restore.repair()

    def finished(outcome: object) -> None:
        if isinstance(outcome, (NotDone, AuthError, OSError)):
            reason = outcome.reason if isinstance(outcome, NotDone) else str(outcome)
            shown = _(STOPPED_WAITING) if reason == STOPPED_WAITING else said(one_line(reason, 1000))
            app.notify(shown, title=_("Not restored"), severity="error", markup=False)
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            done(said(one_line(str(outcome), 1000)))

    def here(operation: Callable[[], object], then: Callable[[object], None]) -> None:
        try:
            outcome = operation()
        except (NotDone, AuthError, OSError) as exc:
            outcome = exc
        then(outcome)

    def answer(yes: bool | None) -> None:
        if yes:
            (run or here)(repair.apply, finished)

    app.push_screen(
        ConfirmScreen(
            _("Restore config.toml?"),
            repair.preview,
            yes=_("Restore"),
            lexer="diff",
            intro=said(restore.what()),  # what the copy is, wrapped: never cut at the screen's edge
        ),
        answer,
    )
