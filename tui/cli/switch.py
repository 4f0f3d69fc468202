"""`assistant-auth switch --region cn|global`: which account the managed provider uses."""

from __future__ import annotations

from tui.cli.output import EXIT_FAIL, EXIT_OK, fail, out
from tui.core.errors import AuthError
from tui.core.slots.switch import switch_region


def run(ns) -> int:
    try:
        message = switch_region(ns.region)
    except AuthError as exc:
        fail(exc)
        return EXIT_FAIL
    out(message)
    return EXIT_OK


