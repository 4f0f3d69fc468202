"""`assistant-auth relay [--account NAME | --region R | --slot NAME | --provider NAME] [--once]`, on a server whose
`ASSISTANT_AUTH_SOCK` is the token agent's forwarded socket: the slot's shared credential file is
kept filled with an access-only credential (refresh token empty) for the official client there,
renewed before it would try to refresh (`tui.core.agent.client.relay`). Never over a sign-in of this
machine; it stops when the agent goes away, and the token it wrote simply expires.

`assistant-auth ssh --relay HOST` starts it on the server for the connection's life."""

from __future__ import annotations

import contextlib
import os

from tui.cli.options import selector_of
from tui.cli.output import EXIT_ERROR, err
from tui.core.agent.client.ask import AgentUnavailable, Session
from tui.core.agent.client.forwarded import relay_started
from tui.core.agent.client.listing import listed, selected
from tui.core.agent.client.relay import Outcome, Relay
from tui.core.agent.client.relay_target import Refused, Target, here, target
from tui.core.agent.client.through import judged, selector_request
from tui.core.agent.client.trouble import unfit
from tui.core.agent.source import Failed, socket_path
from tui.core.agent.wire.naming import SOCKET_ENV
from tui.core.agent.wire.protocol import Request
from tui.core.config.kept import kept_note
from tui.core.config.provider import provision_managed_provider
from tui.core.errors import EXIT_TRANSIENT, AuthError
from tui.core.signals import stop_relay_on_signals
from tui.core.slots.choice import select_for, storage_name_of
from tui.core.slots.selector import Selector
from tui.core.spec.keys import region_key
from tui.core.spec.regions import Region
from tui.core.spec.settings import REGIONS
from tui.core.text.i18n import _
from tui.core.text.phrase import said
from tui.core.text.untrusted import one_line


def run(ns) -> int:
    if not socket_path():
        err(
            _(
                "assistant-auth relay: {variable} is not set: the relay serves the token agent's tokens on a server "
                "reached with `assistant-auth ssh --relay` (or `ssh -R`: `assistant-auth help agent`)"
            ).format(variable=SOCKET_ENV)
        )
        return EXIT_ERROR
    selector = selector_of(ns)
    request = selector_request("token", selector)
    if isinstance(request, Failed):
        for line in request.lines:
            err(line)
        return request.code
    session = Session()
    stop_relay_on_signals(session.interrupt)  # from the first question on: a signal ends the wait at once
    settled = _settle(session, selector)
    if isinstance(settled, int):
        session.close()
        return int(Outcome.STOPPED) if session.interrupted else settled
    chosen, region = settled
    point = chosen.point
    say_quietly = (lambda _text: None) if ns.quiet else _say
    relay = Relay(
        chosen.slot,
        request.selector,
        say=_say,
        note=say_quietly,
        session=session,
        region=None if region is None else region.value,
        first_written=None if point is None else (lambda: _point(point)),
    )
    storage_name = chosen.slot
    stop_relay_on_signals(relay.stop)
    noted = None if ns.once else relay_started(storage_name)  # `status` here shows it while it runs
    try:
        return int(relay.run(once=ns.once))
    finally:
        if noted is not None:
            with contextlib.suppress(OSError):
                os.unlink(noted)


def _settle(session: Session, selector: Selector) -> tuple[Target, Region | None] | int:
    """Where the relay writes (`relay_target`) and the token's region, from the agent's listing
    of the slot asked for; else the exit code, said (an account that is not there: usage)."""
    slot = _listed_slot(session, selector)
    if isinstance(slot, Failed):
        for line in slot.lines:
            err(line)
        return slot.code
    word = (slot or {}).get("region") or selector.region_word
    region = Region(word) if word in REGIONS else None
    try:
        named = storage_name_of(select_for(selector)) if selector.slot or selector.provider else None
        return target(region, here(() if named is None else (named,)), named), region
    except Refused as exc:
        err(one_line(_("assistant-auth relay: {message}").format(message=str(exc.phrase)), 2000))
        return int(Outcome.REFUSED)  # as a slot the relay may not write
    except AuthError as exc:
        err(one_line(said(exc.message), 1000))
        return EXIT_ERROR


def _listed_slot(session: Session, selector: Selector) -> dict | None | Failed:
    """The slot `selector` names in the agent's listing (None: not listed), or why not."""
    listing = Request("status")
    try:
        answer = session.ask(listing)
    except AgentUnavailable as exc:
        said_here = (
            [] if session.interrupted else [_("assistant-auth relay: {message}").format(message=said(exc.args[0]))]
        )
        return Failed(EXIT_TRANSIENT, [one_line(text, 2000) for text in said_here])  # a signal: nothing to say
    checked = judged(listing, answer)
    if isinstance(checked, Failed):
        return checked
    slots, default = listed(checked)
    slot, problem = selected(slots, selector, default)
    return slot if problem is None else unfit(problem, selector)


def _point(region: Region) -> None:
    """The managed provider here now reads the region the relay fills: said, once."""
    try:
        copy = provision_managed_provider(region_key(region), region, keep_any=True)
    except AuthError as exc:
        _say(exc.message)
        return
    _say(
        _(
            "the official client here now uses the {region} region (config.toml's managed provider), as the token relayed"
        ).format(region=region.value)
    )
    if copy is not None:  # the server's own file (its api_key too): kept, and how to take it back
        _say(said(kept_note(copy)))


def _say(text: str) -> None:
    err(one_line(_("assistant-auth relay: {message}").format(message=said(text)), 2000))  # stderr: line-buffered
