"""Two accounts signed in as the same person: a browser still signed in to one account approves
the sign-in meant for another, and nothing on the screen tells the two apart. Said after a
sign-in, naming the other account (`gh auth login` in the same spot adds the same user twice)."""

from __future__ import annotations

from tui.core.credentials.jwt import person_of
from tui.core.person.overview import overview
from tui.core.slots.accounts import Account
from tui.core.spec.keys import DEFAULT_ACCOUNT, login_command
from tui.core.text.i18n import _


def alike(accounts: list[Account], slot: str) -> list[Account]:
    """The other accounts signed in as the same person as the one in `slot`: the same subject of
    the same issuer in their tokens (never a display name, which two people may share); none when
    the token names no subject."""
    mine = next((a for a in accounts if a.slot == slot), None)
    who = _person(mine) if mine is not None else None
    if who is None:
        return []
    return [a for a in accounts if a.slot != slot and _person(a) == who]


def _person(account: Account) -> tuple[str, str] | None:
    return person_of(account.status.fields.get("access_token")) if account.status.has_expiry else None


def same_person_warning(slot: str) -> str | None:
    """One line when the account just signed in to `slot` is the same person as another, else None."""
    accounts = overview().accounts
    others = alike(accounts, slot)
    mine = next((a for a in accounts if a.slot == slot), None)
    if not others or mine is None:
        return None
    return _(
        "Same person: {account} is signed in as the same person as {other}: the browser may still have been "
        "signed in there. To make it another person, sign out of the service in the browser, then run "
        "`{command} --force`."
    ).format(account=spoken(mine), other=", ".join(spoken(a) for a in others), command=login_command(slot))


def spoken(account: Account) -> str:
    """An account as a sentence names it: a named one "account work (cn)", a region's own sign-in
    "the cn sign-in" (never "account cn": no account of that name exists)."""
    if account.name == DEFAULT_ACCOUNT:
        return _("the {region} sign-in").format(region=account.region.value)
    return _("account {account}").format(account=account.label)
