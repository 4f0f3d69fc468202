"""`assistant-auth switch [NAME] [--region cn|global]`: which account the managed provider uses."""

from __future__ import annotations

import sys

from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, err, fail, out
from tui.core.agent.client.source import served, socket_path
from tui.core.errors import AuthError
from tui.core.i18n import _
from tui.core.overview import overview
from tui.core.regions import Region
from tui.core.slots.accounts import name_problem
from tui.core.slots.lookup import find, regions_with
from tui.core.slots.switch import managed_region, switch_account, switch_region


def run(ns) -> int:
    if ns.name is not None:
        return _to_account(ns.name, ns.region)
    region = ns.region or _the_other_region()
    if region is None:
        return EXIT_ERROR
    try:
        message = switch_region(region)
    except AuthError as exc:
        fail(exc)
        return EXIT_FAIL
    out(message)
    return EXIT_OK


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
        if not on_disk and served_from_elsewhere():
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


def served_from_elsewhere() -> bool:
    """This machine gets its tokens from the token agent on the person's own machine (a server):
    its accounts are there, and signing in here is not the next step."""
    return bool(socket_path()) and served().elsewhere


def _the_other_region() -> Region | None:
    """Without --region: the other region than the one in use, when it is signed in; else ask
    on a terminal (None, after saying why, without one or when declined)."""
    current = managed_region()
    view = overview()
    usable = [r for r in Region if view.region_slot(r).usable]
    if current is not None:
        others = [r for r in usable if r is not current]
        if len(others) == 1:
            return others[0]
        if not others:
            other = "global" if current is Region.CN else "cn"
            err(
                _(
                    "The managed provider uses {region}, and the other region is not signed in: "
                    "`assistant-auth login --region {other}` first."
                ).format(region=current.value, other=other)
            )
            return None
    if not sys.stdin.isatty():
        err(_("assistant-auth switch: say which region: --region cn or --region global"))
        return None
    sys.stderr.write(_("Switch the managed provider to which region? [cn/global] "))
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("cn", "global"):
        err(_("Cancelled: nothing was switched."))
        return None
    return Region(answer)  # the person's text, parsed once here
