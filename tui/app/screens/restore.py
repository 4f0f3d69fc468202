"""Restoring a broken config.toml from its last good copy, asked in the wizard: the repair of
`tui.core.config.restore` (doctor offers the same one), its diff shown first."""

from __future__ import annotations

import pathlib
from collections.abc import Callable

from textual.app import App

from tui.app.screens.confirm import ConfirmScreen
from tui.core.config.restore import restore_offer
from tui.core.errors import AuthError
from tui.core.i18n import _
from tui.core.phrase import said
from tui.core.repairs import NotDone
from tui.core.untrusted import one_line


def ask_to_restore(app: App, path: pathlib.Path | None, done: Callable[[str | None], None]) -> None:
    """Show what restoring changes (seen now, not when the screen loaded), ask, restore; `done`
    gets what was done, or None when there was nothing to restore any more. A restore the re-check
    stops is said in a toast, and nothing changes."""
    restore = restore_offer(path)
    if restore is None:
        done(None)
        return
    repair = restore.repair()

    def answer(yes: bool | None) -> None:
        if not yes:
            return
        try:
            made = repair.apply()
        except (NotDone, AuthError, OSError) as exc:
            reason = exc.reason if isinstance(exc, NotDone) else str(exc)
            app.notify(said(one_line(reason, 1000)), title=_("Not restored"), severity="error", markup=False)
            return
        done(said(one_line(made, 1000)))

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
