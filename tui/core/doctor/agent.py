"""`doctor` looks at ASSISTANT_AUTH_SOCK: a live agent is reported with what it serves (this
machine's sign-in, or the person's own machine's through a forward); a socket that does not answer
is a failure with the next step, naming the newest live forwarded connection when there is one."""

from __future__ import annotations

from tui.core.agent.client import forwarded
from tui.core.agent.client.ask import on_a_server
from tui.core.agent.served import AGENT_HERE, Served
from tui.core.agent.source import served
from tui.core.agent.wire.naming import SOCKET_ENV
from tui.core.doctor.model import FAIL, OK, Check
from tui.core.text.phrase import N_, Phrase

NAME = "agent.socket"


def check_agent_socket(found: Served | None = None) -> list[Check]:
    """What the one source says (`source.served`, or `found`, what it said already): an agent
    serving this machine's sign-in, one serving another machine's through this connection, or a
    socket that does not answer."""
    found = found or served()
    where = found.asked
    if where is None:
        return []  # no agent in use: nothing to say about it
    if found.via != where:  # the variable's socket did not answer (a live connection fallen over to, or none)
        return [_dead(where, found.problem)]
    alive = found.answer or {}
    details = {"socket": where, "asked_from": alive.get("asked_from"), "pid": found.pid}
    if found.where is not AGENT_HERE:
        finding = Phrase(
            N_(
                "The token agent on your own machine answers at {socket}: access tokens come from there, and no "
                "refresh token is needed on this machine."
            ),
            socket=where,
        )
        return [Check(NAME, OK, finding, "", details)]
    finding = Phrase(
        N_("The token agent (pid {pid}) at {socket} serves this machine's sign-in to programs that ask it."),
        pid=found.pid if found.pid is not None else "?",
        socket=where,
    )
    return [Check(NAME, OK, finding, "", details)]


def _dead(where: str, why: str) -> Check:
    live = forwarded.newest_live(where)
    details = {"socket": where, "live": live}
    if live is not None:
        fix = Phrase(
            N_("Use the live one: export {variable}={live} (or {stable}, which follows the newest connection)."),
            variable=SOCKET_ENV,
            live=live,
            stable=forwarded.stable_path(),
        )
    elif on_a_server(where):
        fix = Phrase(N_("Reconnect with `assistant-auth ssh` from your own machine."))
    else:
        fix = Phrase(N_('Start the agent (eval "$(assistant-auth agent)"), or unset {variable}.'), variable=SOCKET_ENV)
    return Check(NAME, FAIL, why, fix, details)
