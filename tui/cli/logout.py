"""`assistant-auth logout`: remove a slot's credential file (under the slot's locks)."""

from __future__ import annotations

import sys

from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, ask, err
from tui.cli.selection import selected_slot
from tui.core.agent.source import signs_in_here
from tui.core.person.signout import sign_out, told
from tui.core.slots.accounts import account_label
from tui.core.slots.advice import next_step
from tui.core.slots.state import MISSING, UNREADABLE, slot_status
from tui.core.spec.paths import credentials_path
from tui.core.text.i18n import _
from tui.core.text.phrase import said
from tui.core.text.untrusted import one_line


def run(ns) -> int:
    name = selected_slot(ns)
    if name is None:
        return EXIT_ERROR
    path = credentials_path(name)
    shown = one_line(path, 1000)
    status = slot_status(name)
    if status.state == UNREADABLE:  # another owner's home (sudo): removing it would fail too
        err(_("Cannot sign out: {path} cannot be read ({detail}).").format(path=shown, detail=status.detail_text))
        err(said(next_step(status)))
        return EXIT_ERROR
    if status.state == MISSING:
        err(_("Not signed in: no credentials at {path}").format(path=shown))
        if not signs_in_here():  # a server: the sign-in to sign out of is on the person's own machine
            err(
                _(
                    "Tokens here come from the token agent on your own machine: nothing is signed in here; "
                    "`assistant-auth logout` there signs out."
                )
            )
        return EXIT_FAIL
    if not ns.yes:
        if not sys.stdin.isatty():
            err(_("Refusing to remove {path} without confirmation: pass --yes").format(path=shown))
            return EXIT_ERROR
        if not ask(question(name, shown)):
            err(_("Cancelled: nothing was removed."))
            return EXIT_ERROR  # a declined question is "cancelled" (2); 1 means "not signed in"
    try:
        result = sign_out(name)
    except OSError as exc:
        err(_("Could not remove {path}: {reason}").format(path=shown, reason=exc.strerror or exc))
        return EXIT_ERROR
    for line in told(result, shown):
        err(line)
    return EXIT_OK


def question(name: str, shown: str) -> str:
    """The question before signing out: which account (and who), and which file goes."""
    label = account_label(name)
    if label is None:
        return _("Remove {path}? This signs you out.").format(path=shown)
    who = slot_status(name).identity
    if who:
        text = _("Sign out of account {account} ({who})? {path} is removed.")
    else:
        text = _("Sign out of account {account}? {path} is removed.")
    return text.format(account=label, who=one_line(who, 200), path=shown)
