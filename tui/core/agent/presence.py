"""Whether tokens come from a token agent here, said in one line for Home: on a server reached
through `assistant-auth ssh` (the agent is on the person's own machine, the connection is
forwarded), or on the person's own machine (the agent serves this sign-in). Home's first frame
only reads the variable; the agent is asked later, from a worker."""

from __future__ import annotations

import os

from tui.core.agent.client import AgentUnavailable, ask
from tui.core.agent.protocol import SOCKET_ENV, Request
from tui.core.credentials.slot import try_load
from tui.core.errors import AuthError
from tui.core.i18n import _
from tui.core.slots.choice import select, storage_name_of


def agent_socket() -> str | None:
    return os.environ.get(SOCKET_ENV) or None


def agent_line(path: str) -> str:
    """Blocking (a worker's): the agent asked who it is to this connection."""
    try:
        answer = ask(Request("ping"), path, timeout=10)
    except AgentUnavailable:
        return _("The token agent at {socket} is not answering: a shows why.").format(socket=path)
    if answer.get("asked_from") == "forwarded":
        return _(
            "Access tokens come from the token agent on your own machine, through this connection: "
            "no refresh token is stored here. a opens its view."
        )
    pid = answer.get("pid")
    return _("A token agent (pid {pid}) serves this machine's sign-in: a opens its view.").format(
        pid=pid if isinstance(pid, int) else "?"
    )


def signed_in_here(values: dict[str, str | None]) -> bool:
    """This machine holds a sign-in of its own for the slot `values` select (a refresh token in
    its file): the agent's own machine, or a server someone signed in on. A server that the agent
    or the relay serves holds none, so it never falls back to a file there."""
    try:
        creds = try_load(storage_name_of(select(**values)))
    except AuthError:
        return False
    refresh = (creds or {}).get("refresh_token")
    return isinstance(refresh, str) and bool(refresh)
