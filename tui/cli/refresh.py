"""`assistant-auth refresh`: refresh now (under the slot's locks) and print the new expiry."""

from __future__ import annotations

from tui.cli.output import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    EXIT_TRANSIENT,
    fail,
    out,
    out_json,
)
from tui.cli.selection import selection, selector_usable
from tui.core.credentials.refresh import get_access_token_sync
from tui.core.errors import AuthError
from tui.core.humantime import expiry
from tui.core.i18n import _
from tui.core.slots.choice import explain_for, storage_name_of
from tui.core.slots.state import signed_in_as, slot_status
from tui.core.untrusted import one_line


def run(ns) -> int:
    if not selector_usable(ns):
        return EXIT_ERROR
    chosen = None
    try:
        chosen = selection(ns)
        get_access_token_sync(
            chosen.ref, chosen.base_url, force=True, refuse=chosen.refusal
        )  # as `token`: no event loop
    except AuthError as exc:
        fail(explain_for(exc, chosen))
        return EXIT_TRANSIENT if exc.transient else EXIT_FAIL
    status = slot_status(storage_name_of(chosen))
    if ns.json:
        out_json(
            {
                "slot": status.name,
                "state": status.state,
                "expires_at": status.expires_at,
                "identity": status.identity,
                "region": status.region,
            }
        )
    else:
        out(
            _("Refreshed {slot}: access token expires {when}").format(
                slot=one_line(status.name, 200), when=expiry(status.expires_at)
            )
        )
        out(signed_in_as(status))
    return EXIT_OK
