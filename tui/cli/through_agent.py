"""`token` and `exec` (and `status`, `tui.cli.status_agent`) where `ASSISTANT_AUTH_SOCK` is set:
the token agent on the person's own machine answers, and nothing is read from or written to this
machine's files. An agent that does not answer ends the command with exit 3 and one line naming
the socket. Light on purpose (no i18n, no dataclasses, no `socket` module): `token` through the
agent is measured against `token` from the file (`make bench`, figure 6)."""

from __future__ import annotations

from tui.cli.output import EXIT_ERROR, EXIT_TRANSIENT, err
from tui.core.agent.client import AgentUnavailable, ask
from tui.core.agent.protocol import SELECTORS, Request
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


def asked(request: Request) -> dict | int:
    """The agent's answer when it is `ok`, else the exit code (its failure said on stderr)."""
    try:
        answer = ask(request, on_asking=_waiting_for_approval)
    except AgentUnavailable as exc:
        err(one_line(said(exc.args[0]), 2000))
        return EXIT_TRANSIENT
    if not answer["ok"]:
        err(one_line(answer.get("error") or said(Phrase(N_("the agent refused the request"))), 1000))
        if answer.get("hint"):
            err(one_line(answer["hint"], 1000))
        code = answer.get("exit")
        return code if isinstance(code, int) and not isinstance(code, bool) and code in (1, 2, 3) else EXIT_TRANSIENT
    return answer


def _waiting_for_approval() -> None:
    """Said at once when the agent asks its person (--confirm): where to look, and that we wait."""
    err(said(Phrase(N_("assistant-auth: waiting for approval on your own machine (the token agent asks there)…"))))


def token_from_agent(values: dict, min_ttl: int | None) -> tuple[dict | None, str | int]:
    """(the answer, the access token), or (None, the exit code): `token.obtain` through the agent."""
    request = selector_request("token", values, min_ttl)
    if request is None:
        return None, EXIT_ERROR
    answer = asked(request)
    if isinstance(answer, int):
        return None, answer
    token = answer.get("access_token")
    if not isinstance(token, str) or not usable_token(token):
        err(said(Phrase(N_("assistant-auth: the token agent sent no usable access token"))))
        return None, EXIT_TRANSIENT
    return answer, token
