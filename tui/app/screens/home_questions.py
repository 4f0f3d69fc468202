"""The questions Home asks before a sign-in: where a region has accounts already (add another,
or this one again, or the region's own slot when it has none), and before replacing a sign-in
that still works. They are built here; Home pushes them and starts what was chosen."""

from __future__ import annotations

from tui.app.screens.account_choice import ADD, AccountChoiceScreen
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.home_text import slot_line
from tui.core.person.overview import Overview
from tui.core.slots.state import SlotStatus
from tui.core.spec.keys import DEFAULT_ACCOUNT, AccountRef, login_command
from tui.core.spec.regions import Region
from tui.core.text.i18n import _
from tui.core.text.untrusted import one_line

__all__ = ["ADD", "again_question", "choice_question"]


def choice_question(region: Region, status: SlotStatus, view: Overview) -> AccountChoiceScreen:
    """Enter on a region that has an account: another (a name), or its own slot (again, or, with
    no sign-in of its own, a first one beside its named accounts)."""
    named = {a.name for a in view.accounts if a.region is region and a.name != DEFAULT_ACCOUNT}
    if status.usable:
        return AccountChoiceScreen(
            _("{region} has an account already: add another, or sign in again?").format(region=region.value),
            slot_line(status),
            named,
        )
    who = ", ".join(
        a.shown + (f" · {a.status.identity}" if a.status.identity else "")
        for a in view.accounts
        if a.region is region and a.name != DEFAULT_ACCOUNT
    )
    return AccountChoiceScreen(
        _(
            "{region} has no sign-in of its own, only named accounts: add another, or sign in to {region} itself?"
        ).format(region=region.value),
        _("Accounts in {region}: {accounts}").format(region=region.value, accounts=one_line(who, 300)),
        named,
        again=_("Sign in to {region}").format(region=region.value),
        explain=_(
            "Another account gets a credential slot of its own and becomes the active one; signing in to "
            "{region} itself fills the region's own slot and makes it the active one. No account is replaced."
        ).format(region=region.value),
    )


def again_question(region: Region, account: str | None, status: SlotStatus) -> ConfirmScreen:
    """Before signing in again to a sign-in that works (its refresh rejected: signing in is the
    default); an account is named as one, never as a region."""
    if status.refresh_rejected:  # it works until it expires, then not: signing in is the default
        body = _(
            "{state}.\nThe server rejected its refresh token: when the access token expires it stops "
            "working. Sign in again now (`{command}` on the command line)."
        )
        title = _("Sign in to account {account} again?") if account else _("Sign in to {region} again?")
        no, default_yes = _("Later"), True
    else:
        body = _(
            "{state}.\nIt still works: a new sign-in is not needed. Signing in again replaces its tokens, "
            "for the official client too."
        )
        title = _("Replace the sign-in of account {account}?") if account else _("Replace your {region} sign-in?")
        no, default_yes = _("Keep it"), False
    return ConfirmScreen(
        title.format(region=region.value, account=AccountRef(region.value, account or DEFAULT_ACCOUNT).label),
        body.format(state=slot_line(status), command=login_command(status.name)),
        yes=_("Sign in again"),
        no=no,
        default_yes=default_yes,
    )


def elsewhere_question(socket: str) -> ConfirmScreen:
    """Sign in on a machine whose tokens come from the token agent on the person's own machine?
    (`login` asks the same on the command line.)"""
    return ConfirmScreen(
        _("Sign in on this machine anyway?"),
        _(
            "This machine gets its tokens from the token agent on your own machine ({socket}): signing in "
            "here stores a refresh token on this machine, which the agent exists to keep away."
        ).format(socket=one_line(socket, 200)),
        yes=_("Sign in here"),
        no=_("Keep using the agent"),
    )
