"""What to do about a slot, derived from its state and its name (region and account): the one
next step that `status`, Home, the inspector and doctor say, so none of them advises a sign-in
of another slot than the one it is about."""

from __future__ import annotations

from tui.core.files.owner import give_back
from tui.core.slots.accounts import Account, switch_to_another
from tui.core.slots.state import BROKEN, DANGLING, MISSING, UNREADABLE, SlotStatus
from tui.core.spec import paths
from tui.core.spec.keys import login_command
from tui.core.text.phrase import N_, Phrase

SIGN_IN = N_("To sign in: {command}")
REJECTED = N_("To sign in again (the server rejected the refresh token): {command}")
NOT_YOURS = N_("It is not yours to read: give your files back with `{chown}`, then run this again.")
UNREADABLE_STEP = N_("{path} cannot be read ({detail}): check it, then run this again.")
MOVE_ASIDE = N_(
    "Move it aside (`assistant-auth doctor --fix`, or x in `assistant-auth inspect`; nothing is deleted), "
    "then sign in again: {command}"
)
DANGLING_STEP = N_(
    "{path} is a symbolic link to {target}, which is gone: restore {target} (your dotfiles), "
    "or replace the link with a file (`rm {path}`, then `{command}`)."
)


def next_step(status: SlotStatus) -> str:
    """The slot's next step as a `Phrase` (English as text, said in the reader's language), ""
    when it needs none."""
    command = status.sign_in
    if status.refresh_rejected:
        return Phrase(REJECTED, command=command)
    if status.usable:
        return ""
    if status.state == MISSING:
        return Phrase(SIGN_IN, command=command)
    if status.state == DANGLING:
        return Phrase(DANGLING_STEP, path=status.path, target=status.link, command=command)
    if status.state == UNREADABLE:
        if status.owner_uid is not None:
            return Phrase(NOT_YOURS, chown=give_back(paths.config_dir()))
        return Phrase(UNREADABLE_STEP, path=status.path, detail=status.detail)
    if status.state in BROKEN:
        return Phrase(MOVE_ASIDE, command=command)
    return Phrase(SIGN_IN, command=command)  # revoked, expired without a refresh token: a sign-in of this slot


def sign_in_or_switch(slot: str, accounts: list[Account]) -> str:
    """For a managed provider whose slot has no file: that slot's own sign-in, and the switch to
    an account signed in here when there is one (exact commands, never `switch --region …`)."""
    switch = switch_to_another(accounts)
    login = login_command(slot)
    if switch is None:
        return Phrase(N_("Sign in to it: `{login}`."), login=login)
    return Phrase(
        N_("Sign in to it (`{login}`), or switch to an account signed in here: `{switch}`."), login=login, switch=switch
    )


def switch_step(accounts: list[Account]) -> str:
    """The line after a sign-in step when an account is signed in here to switch to, else ""."""
    switch = switch_to_another(accounts)
    return "" if switch is None else Phrase(N_("Or switch to an account signed in here: {switch}"), switch=switch)
