"""`assistant-auth relay [--account NAME | --region R | --slot NAME | --provider NAME] [--once]`, on a server whose
`ASSISTANT_AUTH_SOCK` is the token agent's forwarded socket: the slot's shared credential file is
kept filled with an access-only credential (refresh token empty) for the official client there,
renewed before it would try to refresh (`tui.core.agent.client.relay`). Never over a sign-in of this
machine; it stops when the agent goes away, and the token it wrote simply expires.

`assistant-auth ssh --relay HOST` starts it on the server for the connection's life."""

from __future__ import annotations

import contextlib
import os

from tui.cli.options import selector_values
from tui.cli.output import EXIT_ERROR, err
from tui.core.agent.client.forwarded import relay_started
from tui.core.agent.client.relay import Relay
from tui.core.agent.client.source import Failed, socket_path
from tui.core.agent.client.through import selector_request
from tui.core.agent.wire.naming import SOCKET_ENV
from tui.core.errors import AuthError
from tui.core.i18n import _
from tui.core.phrase import said
from tui.core.signals import stop_relay_on_signals
from tui.core.slots.choice import select, storage_name_of
from tui.core.untrusted import one_line


def run(ns) -> int:
    if not socket_path():
        err(
            _(
                "assistant-auth relay: {variable} is not set: the relay serves the token agent's tokens on a server "
                "reached with `assistant-auth ssh --relay` (or `ssh -R`: `assistant-auth help agent`)"
            ).format(variable=SOCKET_ENV)
        )
        return EXIT_ERROR
    values = selector_values(ns)
    request = selector_request("token", values)
    if isinstance(request, Failed):
        for line in request.lines:
            err(line)
        return request.code
    try:
        # this machine's slot: what its official client reads (for a named account of the person's
        # own machine: the slot this machine's managed provider names, which its official client uses)
        storage_name = storage_name_of(select() if values.get("account") else select(**values))
    except AuthError as exc:
        err(one_line(said(exc.message), 1000))
        return EXIT_ERROR
    relay = Relay(storage_name, request.selector, say=_say, note=(lambda _text: None) if ns.quiet else _say)
    stop_relay_on_signals(relay.stop)
    noted = None if ns.once else relay_started(storage_name)  # `status` here shows it while it runs
    try:
        return int(relay.run(once=ns.once))
    finally:
        if noted is not None:
            with contextlib.suppress(OSError):
                os.unlink(noted)


def _say(text: str) -> None:
    err(one_line(_("assistant-auth relay: {message}").format(message=said(text)), 2000))  # stderr: line-buffered
