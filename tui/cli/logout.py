"""`assistant-auth logout`: remove a slot's credential file (under the slot's locks)."""

from __future__ import annotations

import sys

from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, ask, err


def add_parser(sub) -> None:
    from tui.cli.options import add_selector

    p = sub.add_parser(
        "logout",
        help="remove a slot's credential file",
        description="Sign out: remove a slot's credential file. Asks first on a terminal.",
    )
    add_selector(p)
    p.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation (needed without a terminal)")


def run(ns) -> int:
    from tui.cli.options import selected_slot
    from tui.core.paths import credentials_path
    from tui.core.slots.repair import remove_slot

    name = selected_slot(ns)
    if name is None:
        return EXIT_ERROR
    path = credentials_path(name)
    if not path.exists():
        err(f"Not signed in: no credentials at {path}")
        return EXIT_FAIL
    if not ns.yes:
        if not sys.stdin.isatty():
            err(f"Refusing to remove {path} without confirmation: pass --yes")
            return EXIT_ERROR
        if not ask(f"Remove {path}? This signs you out."):
            err("Kept.")
            return EXIT_FAIL
    try:
        remove_slot(name)
    except OSError as exc:
        err(f"Could not remove {path}: {exc.strerror or exc}")
        return EXIT_ERROR
    err(f"Signed out: removed {path}")
    return EXIT_OK
