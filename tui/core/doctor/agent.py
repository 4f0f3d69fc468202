"""`doctor` looks at ASSISTANT_AUTH_SOCK: a live agent is reported with what it serves (this
machine's sign-in, or the person's own machine's through a forward); a socket that does not answer
is a failure with the next step, naming the newest live forwarded connection when there is one."""

from __future__ import annotations

import os

from tui.core.agent.client import forwarded
from tui.core.agent.client.ask import AgentUnavailable, ask, on_a_server
from tui.core.agent.client.presence import serves_elsewhere
from tui.core.agent.wire.protocol import SOCKET_ENV, Request
from tui.core.doctor.model import FAIL, OK, Check
from tui.core.phrase import N_, Phrase

NAME = "agent.socket"


def check_agent_socket() -> list[Check]:
    where = os.environ.get(SOCKET_ENV, "")
    if not where:
        return []  # no agent in use: nothing to say about it
    try:
        alive = ask(Request("ping"), where, timeout=10)
    except AgentUnavailable as exc:
        return [_dead(where, str(exc.args[0]))]
    details = {"socket": where, "asked_from": alive.get("asked_from"), "pid": alive.get("pid")}
    if serves_elsewhere(alive):
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
        pid=alive.get("pid") if isinstance(alive.get("pid"), int) else "?",
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
