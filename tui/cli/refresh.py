"""`assistant-auth refresh`: refresh now (under the slot's locks) and print the new expiry."""

from __future__ import annotations

from tui.cli.options import selector_of
from tui.cli.output import (
    EXIT_ERROR,
    EXIT_OK,
    err,
    fail,
    out,
    out_json,
)
from tui.cli.selection import selection, selector_usable
from tui.core.agent.client.relay import written_by_the_relay
from tui.core.agent.source import signs_in_here
from tui.core.credentials.refresh import get_access_token_sync
from tui.core.credentials.slot import try_load
from tui.core.errors import AuthError
from tui.core.slots.choice import explain_for, storage_name_of
from tui.core.slots.state import signed_in_as, slot_status
from tui.core.text.humantime import expiry
from tui.core.text.i18n import _


def run(ns) -> int:
    if not selector_usable(ns):
        return EXIT_ERROR
    elsewhere = refreshed_elsewhere(ns)
    if elsewhere:
        err(elsewhere)
        return EXIT_ERROR
    chosen = None
    try:
        chosen = selection(ns)
        get_access_token_sync(
            chosen.ref, chosen.base_url, force=True, refuse=chosen.refusal
        )  # as `token`: no event loop
    except AuthError as exc:
        fail(explain_for(exc, chosen, selector_of(ns)))
        return exc.exit_code
    status = slot_status(storage_name_of(chosen))
    if ns.json:
        out_json(
            {
                "schema_version": 1,  # as status, token and doctor: raised when a field changes meaning
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
                slot=status.title(200), when=expiry(status.expires_at)
            )
        )
        out(signed_in_as(status))
    return EXIT_OK


def refreshed_elsewhere(ns) -> str:
    """What `refresh` says where the tokens are refreshed on the person's own machine (a server the
    agent serves, or whose file the relay fills): "" where this machine refreshes its own."""
    selector = selector_of(ns)
    if not signs_in_here(selector):
        return _(
            "assistant-auth: tokens here come from the token agent on your own machine, which refreshes them "
            "there: `assistant-auth token` here gets a fresh one; to refresh now, run `assistant-auth refresh` there."
        )
    try:
        relayed = written_by_the_relay(try_load(storage_name_of(selection(ns))))
    except AuthError:
        return ""
    if relayed:
        return _(
            "assistant-auth: this machine's credential file is filled by the relay from the token agent on your "
            "own machine: it holds no refresh token, and the refresh happens there (`assistant-auth refresh` there)."
        )
    return ""
