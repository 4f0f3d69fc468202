"""`assistant-auth logout`: remove a slot's credential file (under the slot's locks)."""

from __future__ import annotations

import sys

from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, ask, err
from tui.cli.selection import selected_slot
from tui.core.i18n import _
from tui.core.paths import credentials_path
from tui.core.signin.store import remove_signin
from tui.core.untrusted import one_line


def run(ns) -> int:
    name = selected_slot(ns)
    if name is None:
        return EXIT_ERROR
    path = credentials_path(name)
    shown = one_line(path, 1000)
    if not path.exists():
        err(_("Not signed in: no credentials at {path}").format(path=shown))
        return EXIT_FAIL
    if not ns.yes:
        if not sys.stdin.isatty():
            err(_("Refusing to remove {path} without confirmation: pass --yes").format(path=shown))
            return EXIT_ERROR
        if not ask(_("Remove {path}? This signs you out.").format(path=shown)):
            err(_("Cancelled: nothing was removed."))
            return EXIT_ERROR  # a declined question is "cancelled" (2); 1 means "not signed in"
    try:
        remove_signin(name)
    except OSError as exc:
        err(_("Could not remove {path}: {reason}").format(path=shown, reason=exc.strerror or exc))
        return EXIT_ERROR
    err(_("Signed out: removed {path}").format(path=shown))
    return EXIT_OK
