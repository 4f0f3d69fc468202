"""Home's one line about the token agent, from the one source (`source.served`): tokens from the
agent on the person's own machine through this connection, an agent serving this machine's
sign-in, or an agent that does not answer. Home's first frame only reads the variable
(`source.socket_path`); the agent is asked later, from a worker."""

from __future__ import annotations

from tui.core.agent.served import AGENT_HERE, FORWARDED, OTHER_HOME, UNREACHABLE, Served
from tui.core.agent.source import served, signs_in_here, socket_path
from tui.core.slots.selector import Selector
from tui.core.text.i18n import _

__all__ = ["agent_line", "agent_socket", "look", "may_sign_in_here"]

agent_socket = socket_path


def look() -> Served:
    """Blocking (a worker's): where this machine's tokens come from (`source.served`)."""
    return served()


def may_sign_in_here(region: str, account: str | None, found: Served | None) -> bool:
    """`source.signs_in_here` for Home's row (a region's own, or a named account), with what
    Home's worker found (`look`): no look finished yet while an agent is pointed at counts as
    one that does not answer (asked, never assumed)."""
    path = socket_path()
    if path is None:
        return True
    return signs_in_here(Selector(account=account, region=region), found or Served(UNREACHABLE, path))


def agent_line(found: Served | None = None) -> str:
    """Where this machine's tokens come from, in one line (blocking without `found`: a worker's)."""
    found = found or served()
    if found.where is FORWARDED:
        return _(
            "Access tokens come from the token agent on your own machine, through this connection: "
            "no refresh token is stored here. a opens its view."
        )
    if found.where in (AGENT_HERE, OTHER_HOME, FORWARDED):
        pid = found.pid
        return _("A token agent (pid {pid}) serves this machine's sign-in: a opens its view.").format(
            pid=pid if pid is not None else "?"
        )
    return _("The token agent at {socket} is not answering: a shows why.").format(socket=found.asked or "")
