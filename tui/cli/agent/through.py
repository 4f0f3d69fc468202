"""`token` and `exec` (and `status`, `tui.cli.agent.status`) where `ASSISTANT_AUTH_SOCK` is set:
the token agent on the person's own machine answers, and nothing is read from or written to this
machine's files. An agent that does not answer ends the command with exit 3 and one line naming
the socket. Light on purpose (no i18n, no dataclasses, no `socket` module): `token` through the
agent is measured against `token` from the file (`make bench`, figure 6)."""

from __future__ import annotations

from tui.cli.agent.notes import waiting_for_approval
from tui.cli.output import EXIT_ERROR, EXIT_TRANSIENT, err
from tui.core.agent.client.ask import AgentUnavailable, ask
from tui.core.agent.wire.protocol import SELECTORS, Request
from tui.core.credentials.slot import usable_token
from tui.core.phrase import N_, Phrase, said


def selector_request(op: str, values: dict, min_ttl: int | None = None) -> Request | None:
    """The request for `values` (the selector flags), or None (said) when they name a slot by a
    key or host the agent is not asked by."""
    chosen = {name: value for name, value in values.items() if value is not None}
    if any(name not in SELECTORS for name in chosen):
        err(
            said(
                Phrase(
                    N_(
                        "assistant-auth: through the token agent, choose the slot with --account, --region, --slot or --provider"
                    )
                )
            )
        )
        return None
    return Request(op, tuple(chosen.items()), min_ttl)


def asked(request: Request, local: dict | None = None) -> dict | int:
    """The agent's answer when it is `ok`, else the exit code (its failure said on stderr).
    `local`: the selector values, when this machine's own sign-in may serve if no agent answers
    (UseLocal, after one line saying so)."""
    try:
        answer = ask(request, on_asking=waiting_for_approval)
    except AgentUnavailable as exc:
        from tui.cli.agent.trouble import no_answer  # lazy: the failure path only (make bench, figure 6)

        return no_answer(request, exc, local)
    return judged(request, answer)


def judged(request: Request, answer: dict) -> dict | int:
    """The answer when it is `ok`, else its failure said on stderr and the exit code."""
    if not answer["ok"]:
        from tui.cli.agent.trouble import refused  # lazy: the failure path only (make bench, figure 6)

        return refused(request, answer)
    return answer


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
