"""`doctor` on the accounts: which one the managed provider points at (one it names without a
file here is a failure, reported and never repointed), and each account's state once there is a
named one. The files themselves (kind, owner, mode, parse) are `files.slot.*`'s checks."""

from __future__ import annotations

from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.person.overview import Overview
from tui.core.slots.accounts import Account, account_label, switch_to_another
from tui.core.slots.advice import next_step, sign_in_or_switch
from tui.core.slots.state import slot_title
from tui.core.spec.keys import DEFAULT_ACCOUNT
from tui.core.text.phrase import N_, Phrase

ACTIVE = "accounts.active"


def check_accounts(view: Overview) -> list[Check]:
    accounts = view.accounts
    checks = [] if (found := _active(view, accounts)) is None else [found]
    if any(account.name != DEFAULT_ACCOUNT for account in accounts):
        checks += [_account(account, accounts) for account in accounts]
    return checks


def _active(view: Overview, accounts: list[Account]) -> Check | None:
    label = account_label(view.managed)
    if label is None:
        return None  # no managed provider, or one that names no account: `credentials` speaks of it
    details = {"slot": view.managed, "account": label}
    if view.dangling is not None:
        region, name = view.dangling
        fix = Phrase(
            N_("Sign in to it (`assistant-auth login --account {name} --region {region}`) or switch: `{command}`."),
            name=name,
            region=region,
            command=switch_to_another(accounts) or "assistant-auth switch NAME",
        )
        finding = Phrase(
            N_("The managed provider points at account {account}, which has no credential file here (left as it is)."),
            account=label,
        )
        return Check(ACTIVE, FAIL, finding, fix, details)
    active = next((a for a in accounts if a.active), None)
    if active is None:  # the region's own slot, with no file: signed out, moved aside, another region's only
        finding = Phrase(
            N_("The managed provider points at {account}, which has no credential file here (left as it is)."),
            account=slot_title(view.managed or ""),  # a region's own sign-in named as Home names it: `cn`
        )
        return Check(ACTIVE, WARN, finding, sign_in_or_switch(view.managed or "", accounts), details)
    who = active.status.identity
    finding = (
        Phrase(N_("The managed provider points at account {account} ({who})."), account=label, who=who)
        if who
        else Phrase(N_("The managed provider points at account {account}."), account=label)
    )
    return Check(ACTIVE, OK, finding, "", details)


def _account(account: Account, accounts: list[Account]) -> Check:
    name = f"accounts.{account.region.value}.{account.name}"
    details = {"slot": account.slot, "state": account.status.state, "active": account.active}
    state = account.status.label_phrase
    if account.status.usable:
        finding = Phrase(
            N_("Account {account}: {state}, signed in as {who}."),
            account=account.label,
            state=state,
            who=account.status.identity or "?",
        )
        return Check(name, OK, finding, "", details)
    fix = next_step(account.status)  # the sign-in of this account, or the repair its file needs first
    finding = Phrase(N_("Account {account}: {state}."), account=account.label, state=state)
    return Check(name, FAIL if account.active else WARN, finding, fix, details)
