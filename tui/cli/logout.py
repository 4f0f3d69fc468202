"""`assistant-auth logout`: remove a slot's credential file (under the slot's locks)."""

from __future__ import annotations

import sys

from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, ask, err
from tui.cli.selection import selected_slot
from tui.core.i18n import _
from tui.core.overview import overview
from tui.core.paths import credentials_path
from tui.core.signin.store import remove_signin
from tui.core.slots.accounts import account_label, switch_to_another
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
    line = pointed_at_after(name)
    if line:
        err(line)
    return EXIT_OK


def pointed_at_after(removed: str) -> str | None:
    """What the managed provider points at after signing out of `removed` (an account's slot):
    still that one (it is never repointed behind the person's back) and what to switch to, or
    the account it uses."""
    view = overview()
    active = account_label(view.managed)
    if active is None or account_label(removed) is None:
        return None
    if view.managed != removed:
        return _("The managed provider uses account {account}.").format(account=active)
    command = switch_to_another(view.accounts)
    if command is None:
        return _(
            "The managed provider still points at account {account}, now signed out: sign in again with "
            "`assistant-auth login`."
        ).format(account=active)
    return _(
        "The managed provider still points at account {account}, now signed out: `{command}` uses another "
        "(the official client follows)."
    ).format(account=active, command=command)
