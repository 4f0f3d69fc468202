"""`assistant-auth refresh`: refresh now (under the slot's locks) and print the new expiry."""

from __future__ import annotations

from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, EXIT_TRANSIENT, fail, out, out_json


def add_parser(sub) -> None:
    from tui.cli.options import add_selector

    p = sub.add_parser(
        "refresh",
        help="refresh now; prints the new expiry",
        description="Refresh the access token now with the stored refresh token, and print the new expiry. "
        "Exit codes: 0 refreshed; 1 sign in again; 2 usage; 3 transient (network or server trouble: retry later).",
    )
    add_selector(p)
    p.add_argument("--json", action="store_true", help="one JSON object on stdout for scripts")


def run(ns) -> int:
    import asyncio

    from tui.cli.options import selection, selector_usable
    from tui.core.errors import AuthError
    from tui.core.slots.choice import explain_for, storage_name_of
    from tui.core.slots.state import signed_in_as, slot_status
    from tui.core.tokens import refresh_access_token
    from tui.core.humantime import expiry

    if not selector_usable(ns):
        return EXIT_ERROR
    chosen = None
    try:
        chosen = selection(ns)
        asyncio.run(refresh_access_token(chosen.ref, chosen.base_url))
    except AuthError as exc:
        fail(explain_for(exc, chosen))
        return EXIT_TRANSIENT if exc.transient else EXIT_FAIL
    status = slot_status(storage_name_of(chosen))
    if ns.json:
        out_json({"slot": status.name, "state": status.state, "expires_at": status.expires_at,
                  "identity": status.identity, "region": status.region})
    else:
        out(f"Refreshed {status.name}: access token expires {expiry(status.expires_at)}")
        out(signed_in_as(status))
    return EXIT_OK
