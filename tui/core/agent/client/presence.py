"""Whether tokens come from a token agent here, said in one line for Home: on a server reached
through `assistant-auth ssh` (the agent is on the person's own machine, the connection is
forwarded), or on the person's own machine (the agent serves this sign-in). Home's first frame
only reads the variable; the agent is asked later, from a worker."""

from __future__ import annotations

import os

from tui.core import paths
from tui.core.agent.client.ask import AgentUnavailable, ask
from tui.core.agent.wire.protocol import SOCKET_ENV, Request
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


def same_files(home: str) -> bool:
    """`home` (an agent's config dir, from its `ping`) is this process's config dir."""
    try:
        return os.path.samefile(home, paths.config_dir_str())
    except OSError:
        return os.path.realpath(home) == os.path.realpath(paths.config_dir_str())


def serves_elsewhere(alive: dict[str, object]) -> bool:
    """An agent's `ping` answer says it serves another machine's (or another home's) sign-in:
    asked through a forward, or its config dir is not this one (a container, another home)."""
    home = alive.get("home")
    return alive.get("asked_from") == "forwarded" or not isinstance(home, str) or not same_files(home)


def agent_elsewhere(path: str) -> bool:
    """Blocking: the agent at `path` serves another machine's (or another home's) sign-in, or does
    not answer: this machine is then one that gets its tokens from elsewhere (a server)."""
    try:
        return serves_elsewhere(ask(Request("ping"), path, timeout=10))
    except AgentUnavailable:
        return True


def relayed_here(storage_name: str) -> bool:
    """The slot's file is the relay's (an access token from the agent, no refresh token, a real
    expiry): what the official client on a server reads, renewed from the person's own machine."""
    creds = try_load(storage_name) or {}
    expires_at = creds.get("expires_at")
    return (
        creds.get("refresh_token") == ""
        and creds.get("expires_in") == 0
        and isinstance(expires_at, (int, float))
        and not isinstance(expires_at, bool)
        and expires_at > 0
    )
