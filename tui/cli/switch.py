"""`assistant-auth switch [NAME] [--region cn|global]`: which account the managed provider uses."""

from __future__ import annotations

import sys

from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, err, fail, out
from tui.core.agent.source import signs_in_here
from tui.core.errors import AuthError
from tui.core.person.overview import overview
from tui.core.slots.accounts import Account, name_problem, switch_choice
from tui.core.slots.lookup import find, regions_with
from tui.core.slots.switch import switch_account, switch_region
from tui.core.spec.keys import DEFAULT_ACCOUNT
from tui.core.spec.regions import Region
from tui.core.spec.settings import REGIONS
from tui.core.text.i18n import _


def run(ns) -> int:
    if ns.name is not None:
        return _to_account(ns.name, ns.region)
    view = overview()
    region = ns.region
    if region is not None and (view.region_slot(region).usable or not _named_in(view.accounts, region)):
        return _to_region(region)  # the region's own account (or why not)
    chosen, choices = switch_choice(view.accounts, region)
    if chosen is None and choices:
        chosen = _pick(choices)
        if chosen is None:
            return EXIT_ERROR
    if chosen is None:
        return _nothing_to_switch_to(view.accounts, region)
    try:
        message = switch_account(chosen.region, chosen.name)
    except AuthError as exc:
        fail(exc)
        return exc.exit_code
    out(message)
    return EXIT_OK


def _named_in(accounts: list[Account], region: Region) -> bool:
    return any(a.region is region and a.name != DEFAULT_ACCOUNT and a.status.usable for a in accounts)


def _to_region(region: Region) -> int:
    try:
        message = switch_region(region)
    except AuthError as exc:
        fail(exc)
        return exc.exit_code  # by its kind, as `switch NAME`: a held lock is 3, a refusal 1
    out(message)
    return EXIT_OK


def _pick(choices: list[Account]) -> Account | None:
    """On a terminal: the accounts by number and name, the answer a number or a name; else said
    which names to give (None, exit 2)."""
    names = ", ".join(account.shown for account in choices)
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        err(
            _(
                "assistant-auth switch: say which account ({accounts}): assistant-auth switch NAME [--region cn|global]"
            ).format(accounts=names)
        )
        return None
    err(_("Switch the managed provider (and the official client) to which account?"))
    for number, account in enumerate(choices, 1):
        who = account.status.identity or _("(no name in the token)")
        marker = _(" (active)") if account.active else ""
        err(f"  {number}) {account.shown}  {who}{marker}")
    sys.stderr.write(_("Number or name: "))
    sys.stderr.flush()
    answer = sys.stdin.readline().strip()
    found = [a for n, a in enumerate(choices, 1) if answer in (str(n), a.name, a.label, a.shown)]
    if len(found) != 1:
        err(_("Cancelled: nothing was switched."))
        return None
    return found[0]


def _nothing_to_switch_to(accounts: list[Account], region: Region | None) -> int:
    """No other usable account (in `region`): said with what adds one; the active one named."""
    active = next((a for a in accounts if a.active), None)
    in_region = _(" in {region}").format(region=region.value) if region is not None else ""
    if active is not None and active.status.usable and (region is None or active.region is region):
        other = next(r for r in REGIONS if r != active.region.value)  # the other region (of two)
        text = _(
            "assistant-auth switch: {account} is the only account signed in{in_region}: "
            "`assistant-auth login --account NAME` adds another, `assistant-auth login --region {other}` signs in "
            "the other region."
        )
        err(text.format(account=active.shown, in_region=in_region, other=other))
        return EXIT_FAIL
    flags = f" --region {region.value}" if region is not None else ""
    err(
        _("assistant-auth switch: no account is signed in{in_region}: `assistant-auth login{flags}` first.").format(
            in_region=in_region, flags=flags
        )
    )
    return EXIT_FAIL


def _to_account(name: str, region: Region | None) -> int:
    """`switch NAME [--region R]`: a name parsed at the door (exit 2, nothing read or written),
    then the account found on disk (none, or in both regions without --region: exit 1 / 2)."""
    problem = name_problem(name)
    if problem:
        err(_("assistant-auth: {problem}").format(problem=problem))
        return EXIT_ERROR
    on_disk = regions_with(name)
    try:
        where = find(name, region.value if region else None)
    except AuthError as exc:
        if not on_disk and not signs_in_here():
            err(
                _(
                    "assistant-auth: no account named {name} on this machine, whose tokens come from the token agent "
                    "on your own machine: `assistant-auth token --account {name}` asks it, and "
                    "`assistant-auth ssh --relay --account {name} HOST` feeds this machine's official client."
                ).format(name=name)
            )
            return EXIT_ERROR
        fail(exc)
        return exc.exit_code  # unknown or ambiguous: usage (2), as everywhere
    try:
        message = switch_account(Region(where), name)
    except AuthError as exc:
        fail(exc)
        return exc.exit_code
    out(message)
    return EXIT_OK
