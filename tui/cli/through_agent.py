"""`token` and `exec` (and `status`, `tui.cli.status_agent`) where `ASSISTANT_AUTH_SOCK` is set:
the token agent on the person's own machine answers, and nothing is read from or written to this
machine's files. An agent that does not answer ends the command with exit 3 and one line naming
the socket. Light on purpose (no i18n, no dataclasses, no `socket` module): `token` through the
agent is measured against `token` from the file (`make bench`, figure 6)."""

from __future__ import annotations

import os

from tui.cli.output import EXIT_ERROR, EXIT_TRANSIENT, err
from tui.core.agent.client import AgentUnavailable, ask, socket_path
from tui.core.agent.protocol import SELECTORS, SOCKET_ENV, Request
from tui.core.credentials.slot import usable_token
from tui.core.phrase import N_, Phrase, said
from tui.core.untrusted import one_line


def selector_request(op: str, values: dict, min_ttl: int | None = None) -> Request | None:
    """The request for `values` (the selector flags), or None (said) when they name a slot by a
    key or host the agent is not asked by."""
    chosen = {name: value for name, value in values.items() if value is not None}
    if any(name not in SELECTORS for name in chosen):
        err(
            said(
                Phrase(
                    N_("assistant-auth: through the token agent, choose the slot with --region, --slot or --provider")
                )
            )
        )
        return None
    return Request(op, tuple(chosen.items()), min_ttl)


class UseLocal(Exception):
    """No agent answers, and this machine has a sign-in of its own for the slot: use it (said)."""


def asked(request: Request, local: dict | None = None) -> dict | int:
    """The agent's answer when it is `ok`, else the exit code (its failure said on stderr).
    `local`: the selector values, when this machine's own sign-in may serve if no agent answers
    (UseLocal, after one line saying so)."""
    try:
        answer = ask(request, on_asking=_waiting_for_approval)
    except AgentUnavailable as exc:
        from tui.core.agent import forwarded  # lazy: the failure path only (make bench, figure 6)

        through = _through_another(request, socket_path() or "")  # the newest live forwarded connection
        if through is not None:
            return through
        from tui.core.agent.presence import signed_in_here  # lazy: the failure path only (make bench, figure 6)

        if local is not None and signed_in_here(local):
            err(one_line(said(Phrase(STALE_HERE, socket=socket_path() or "", variable=SOCKET_ENV)), 2000))
            raise UseLocal from None
        err(one_line(said(exc.args[0]), 2000))
        if os.path.isdir(forwarded.directory()):  # a server where connections register: none is live
            err(one_line(said(Phrase(NONE_LIVE, stable=forwarded.stable_path())), 2000))
        return EXIT_TRANSIENT
    return _judged(request, answer)


def _judged(request: Request, answer: dict) -> dict | int:
    """The answer when it is `ok`, else its failure said on stderr and the exit code."""
    if not answer["ok"]:
        from tui.core.agent.causes import server_words  # lazy: the failure path only (make bench, figure 6)

        worded = server_words(
            answer.get("cause"), dict(request.selector).get("slot") or dict(request.selector).get("provider")
        )
        if worded is not None:  # a server's reader: about the person's own machine, in its words
            err(one_line(said(Phrase(N_("assistant-auth: {problem}"), problem=worded[0])), 1000))
            return worded[1]
        err(one_line(answer.get("error") or said(Phrase(N_("the agent refused the request"))), 1000))
        if answer.get("hint"):
            err(one_line(answer["hint"], 1000))
        code = answer.get("exit")
        return code if isinstance(code, int) and not isinstance(code, bool) and code in (1, 2, 3) else EXIT_TRANSIENT
    return answer


FELL_OVER = N_(
    "assistant-auth: the connection at {old} has ended; tokens come through the newest live one, {new} "
    "(set {variable} to {stable} to follow the newest connection)."
)
NONE_LIVE = N_(
    "assistant-auth: no other forwarded connection answers either ({stable}): reconnect with `assistant-auth ssh`."
)


def _through_another(request: Request, where: str) -> dict | int | None:
    """The request asked through the newest registered connection that answers, when the one at
    `where` has ended (said in one line, and that connection used for the rest of this command);
    None when none answers. No look first: the request itself is the look."""
    from tui.core.agent import forwarded  # lazy: the failure path only (make bench, figure 6)

    for new in forwarded.candidates(where):
        try:
            answer = ask(request, new, on_asking=_waiting_for_approval)
        except AgentUnavailable:
            continue
        os.environ[SOCKET_ENV] = new
        _said_fall_over(where, new)
        return _judged(request, answer)
    return None


def _said_fall_over(where: str, new: str) -> None:
    from tui.core.agent import forwarded  # lazy: the failure path only (make bench, figure 6)

    stable = forwarded.stable_path()
    err(one_line(said(Phrase(FELL_OVER, old=where, new=new, variable=SOCKET_ENV, stable=stable)), 2000))


def fall_over(where: str) -> str | None:
    """The newest live forwarded connection when the one at `where` has ended (said in one line,
    and used for the rest of this command); None when there is none."""
    from tui.core.agent import forwarded  # lazy: the failure path only (make bench, figure 6)

    new = forwarded.newest_live(where)
    if new is None:
        return None
    _said_fall_over(where, new)
    os.environ[SOCKET_ENV] = new
    return new


STALE_HERE = N_(
    "assistant-auth: the token agent at {socket} ({variable}) does not answer; this machine's own sign-in is "
    'used instead. Restart the agent (eval "$(assistant-auth agent)") or unset {variable}.'
)


def _waiting_for_approval() -> None:
    """Said at once when the agent asks its person (--confirm): where to look, and that we wait."""
    err(said(Phrase(N_("assistant-auth: waiting for approval on your own machine (the token agent asks there)…"))))


def token_from_agent(values: dict, min_ttl: int | None) -> tuple[dict | None, str | int]:
    """(the answer, the access token), or (None, the exit code): `token.obtain` through the agent."""
    request = selector_request("token", values, min_ttl)
    if request is None:
        return None, EXIT_ERROR
    answer = asked(request, local=values)
    if isinstance(answer, int):
        return None, answer
    token = answer.get("access_token")
    if not isinstance(token, str) or not usable_token(token):
        err(said(Phrase(N_("assistant-auth: the token agent sent no usable access token"))))
        return None, EXIT_TRANSIENT
    return answer, token
