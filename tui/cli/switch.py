"""`assistant-auth switch --region cn|global`: which account the managed provider uses."""

from __future__ import annotations

import sys

from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, err, fail, out
from tui.core.errors import AuthError
from tui.core.i18n import _
from tui.core.overview import overview
from tui.core.regions import Region
from tui.core.slots.switch import managed_region, switch_region


def run(ns) -> int:
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
