"""Named accounts: several sign-ins per region, each in a credential slot of its own.

An account is a slot (`keys.account_slot`): the region's own slot is its `default` account, and
`work` in cn is `assistant-code-account-cn-work`. Which one is active is which slot the managed
provider of config.toml names (read as `token` reads it); switching points the provider there.
No credential file is ever copied: each account's refresh token rotates in its own file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui.core.slots.state import MISSING, SlotStatus
from tui.core.spec.keys import (
    ACCOUNT_NAME_MAX,
    DEFAULT_ACCOUNT,
    AccountRef,
    account_of_slot,
    valid_account_name,
)
from tui.core.spec.regions import Region
from tui.core.text.i18n import _


def name_problem(name: object) -> str | None:
    """Why `name` cannot be an account's name (one line, in the reader's language), else None."""
    if valid_account_name(name):
        return None
    text = name if isinstance(name, str) else ""
    shown = repr(text if len(text) <= 20 else text[:20] + "…")  # repr: a newline is shown, never written
    return _(
        "invalid account name {name}: use 1 to {most} lowercase letters, digits, - or _, starting with a letter or digit"
    ).format(name=shown, most=ACCOUNT_NAME_MAX)


@dataclass(frozen=True)
class Account:
    """One account as `status` lists it: its name, region and slot's state; `active` when the
    managed provider names its slot."""

    name: str
    region: Region
    status: SlotStatus
    active: bool = False

    @property
    def slot(self) -> str:
        return self.status.name

    @property
    def label(self) -> str:
        """`work (cn)`: how messages name it."""
        return AccountRef(self.region.value, self.name).label

    @property
    def shown(self) -> str:
        """How a person names it: `work (cn)`, a region's own account as its region (`cn`)."""
        return self.region.value if self.name == DEFAULT_ACCOUNT else self.label

    def to_dict(self) -> dict[str, Any]:
        """`status --json`'s `accounts` entry: never a token."""
        return {
            "name": self.name,
            "region": self.region.value,
            "active": self.active,
            "slot": self.slot,
            "state": self.status.state,
            "usable": self.status.usable,
            "identity": self.status.identity_claim,
            "expires_at": self.status.expires_at,
        }


def accounts_in(slots: list[SlotStatus], managed: str | None) -> list[Account]:
    """The accounts among `slots` (a listing of the credentials directory), a missing slot left
    out; by region, the default first, then by name."""
    found = []
    for status in slots:
        named = account_of_slot(status.name)
        if named is None or status.state == MISSING:
            continue
        found.append(Account(named.name, Region(named.region), status, active=status.name == managed))
    return sorted(found, key=lambda a: account_order(a.region.value, a.name))


def account_order(region: str, name: str) -> tuple[bool, bool, str]:
    """How accounts are listed everywhere: by region (cn first), the default first, then by name."""
    return region != Region.CN.value, name != DEFAULT_ACCOUNT, name


def account_label(slot: str | None) -> str | None:
    """`work (cn)` for an account's slot, else None."""
    named = account_of_slot(slot) if slot else None
    return named.label if named else None


def switch_to_another(accounts: list[Account]) -> str | None:
    """The `switch` to the first usable account among `accounts` (when the active one cannot
    serve: signed out, or never there), else None."""
    usable = [account for account in accounts if account.status.usable]
    return switch_command(usable[0], accounts) if usable else None


def switch_command(account: Account, accounts: list[Account]) -> str:
    """The `assistant-auth switch …` that names `account` among `accounts` unambiguously."""
    if account.name == DEFAULT_ACCOUNT:
        return f"assistant-auth switch --region {account.region.value}"
    both = sum(1 for other in accounts if other.name == account.name) > 1
    return f"assistant-auth switch {account.name}" + (f" --region {account.region.value}" if both else "")


def switch_choice(accounts: list[Account], region: Region | None = None) -> tuple[Account | None, list[Account]]:
    """What a `switch` without a name does, as `gh auth switch`: (the account to switch to, the
    accounts to choose from). One usable account besides the active one (in `region`, when
    given): it, at once (a toggle between two). More: none, and every usable one to choose from
    (the active one among them, marked). None: none, and nothing to choose."""
    usable = [a for a in accounts if a.status.usable and (region is None or a.region is region)]
    others = [a for a in usable if not a.active]
    if len(others) == 1:
        return others[0], []
    return None, usable if len(others) > 1 else []
