"""Signing out of a slot, as `gh auth logout` does it: the credential file removed under the
slot's locks, and, when it was the active account (the one the managed provider names), the
managed provider switched to a remaining usable account (the same region's first) and said. With
none left, the provider keeps naming the signed-out account, and what is said names it and the
exact sign-in that brings it back. The command line and the wizard both sign out here."""

from __future__ import annotations

import pathlib
from dataclasses import dataclass

from tui.core.config.provider import NotAsDecided
from tui.core.errors import AuthError
from tui.core.person.overview import overview
from tui.core.signin.store import remove_signin
from tui.core.slots.accounts import Account, account_label, switch_command
from tui.core.slots.choice import managed_slot
from tui.core.slots.switch import switch_account
from tui.core.spec.keys import account_of_slot, login_command
from tui.core.spec.regions import Region
from tui.core.text.i18n import _
from tui.core.text.phrase import N_, Phrase, said


@dataclass(frozen=True)
class SignedOut:
    """What a sign-out did: the file removed; the switch made (its one-line confirmation) or
    why none could be; the signed-out account the provider still names, when it was active."""

    path: pathlib.Path
    switched: str | None = None  # the switch's own confirmation
    dangling: str | None = None  # `work (cn)`: the active account, signed out, nothing to switch to
    login: str | None = None  # the sign-in that brings `dangling` back
    active: str | None = None  # another account stayed active: its label
    not_switched: str | None = None  # the switch to another account could not be written: what happened


def successor(accounts: list[Account], removed: str) -> Account | None:
    """The account to switch to when `removed` (the active one) is signed out: a usable one of
    the same region first, then of the other, in `status`'s order."""
    left = [a for a in accounts if a.slot != removed and a.status.usable]
    region = account_of_slot(removed)
    same = [a for a in left if region is not None and a.region.value == region[0]]
    chosen = same or left
    return chosen[0] if chosen else None


def sign_out(storage_name: str) -> SignedOut:
    """Remove `storage_name`'s credential file (OSError when it cannot be) and, when it was the
    active account, switch to a remaining one."""
    path = remove_signin(storage_name)  # after the wait for its locks, which account is active is read
    view = overview()  # once: the removed slot is missing now, and `successor` leaves it out besides
    was_active = view.managed == storage_name and account_of_slot(storage_name) is not None
    if not was_active:
        other = account_label(view.managed) if account_label(storage_name) else None
        return SignedOut(path, active=other)
    chosen = successor(view.accounts, storage_name)
    if chosen is not None:
        try:
            switched = switch_account(Region(chosen.region), chosen.name, only_from=storage_name)
            return SignedOut(path, switched=switched)
        except NotAsDecided:  # a switch made meanwhile (read again under config.toml's lock) stands
            return SignedOut(path, active=account_label(managed_slot()))
        except AuthError as exc:  # config.toml's lock held, the file unreadable: said as what happened
            return SignedOut(
                path,
                dangling=account_label(storage_name),
                not_switched=Phrase(
                    N_(
                        "The managed provider still names account {account}, now signed out: switching it to "
                        "{other} failed ({reason}). `{command}` switches once that is fixed."
                    ),
                    account=account_label(storage_name),
                    other=chosen.shown,
                    reason=exc.message,
                    command=switch_command(chosen, view.accounts),
                ),
            )
    return SignedOut(path, dangling=account_label(storage_name), login=login_command(storage_name))


def told(result: SignedOut, path_text: str) -> list[str]:
    """The lines that tell the person what a sign-out did (`path_text`: the path as shown here)."""
    lines = [_("Signed out: removed {path}").format(path=path_text)]
    if result.switched:
        lines.append(result.switched)
    elif result.not_switched:  # other accounts are signed in: never "no other account is signed in"
        lines.append(said(result.not_switched))
    elif result.dangling:
        lines.append(
            _(
                "The managed provider still names account {account}, now signed out, and no other account is "
                "signed in: sign in again with `{command}`."
            ).format(account=result.dangling, command=result.login)
        )
    elif result.active:
        lines.append(_("The managed provider uses account {account}.").format(account=result.active))
    return lines
