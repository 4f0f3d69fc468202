"""`assistant-auth switch --region cn|global`: which account the managed provider uses."""

from __future__ import annotations

from tui.cli.output import EXIT_FAIL, EXIT_OK, fail, out


def add_parser(sub) -> None:
    from tui.cli.options import region_arg

    p = sub.add_parser(
        "switch",
        help="use the other region's sign-in for the managed provider",
        description="Point the provider managed:assistant-code of config.toml at a region whose slot "
        "holds usable credentials (valid, or expired with a refresh token), without signing in "
        "again. config.toml is shared: the official client follows the switch too.",
    )
    p.add_argument("--region", type=region_arg, required=True, metavar="{cn,global}", help="the region to switch to")


def run(ns) -> int:
    from tui.core.errors import AuthError
    from tui.core.slots.switch import switch_region

    try:
        message = switch_region(ns.region)
    except AuthError as exc:
        fail(exc)
        return EXIT_FAIL
    out(message)
    return EXIT_OK


