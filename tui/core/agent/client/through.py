"""A request through the token agent, for `token`, `exec`, `status` and the relay: the request
from the selector, the answer when it is `ok`, else what to say (by its cause, for where it is
read) and the exit code. Nothing is printed here and nothing read from this machine's files.
Light on purpose (no i18n, no dataclasses, no `socket` module): `token` through the agent is
measured against `token` from the file (`make bench`, figure 6)."""

from __future__ import annotations

from tui.core.agent.client.ask import AgentUnavailable, ask
from tui.core.agent.where import Failed, Issued, OwnSignIn, socket_path
from tui.core.agent.wire.protocol import Request
from tui.core.credentials.slot import usable_token
from tui.core.errors import EXIT_TRANSIENT, EXIT_USAGE
from tui.core.slots.selector import Selector
from tui.core.text.phrase import N_, Phrase, said

TYPE_CHECKING = False  # not `from typing import`: on `token`'s path through the agent
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

NOT_BY_KEY = N_(
    "assistant-auth: through the token agent, choose the slot with --account, --region, --slot or --provider"
)
NO_USABLE_TOKEN = N_("assistant-auth: the token agent sent no usable access token")


def selector_request(op: str, selector: Selector, min_ttl: int | None = None) -> Request | Failed:
    """The request for `selector`, or `Failed` (usage) when it names a slot by a key or host the
    agent is not asked by."""
    if not selector.for_the_agent:
        return Failed(EXIT_USAGE, [said(Phrase(NOT_BY_KEY))])
    return Request(op, selector, min_ttl)


def asked(
    request: Request,
    on_asking: Callable[[], object] | None = None,
    own_sign_in: Callable[[], bool] | None = None,
    at: str | None = None,
) -> tuple[dict[str, Any] | Failed | OwnSignIn, list[str], str | None]:
    """(the agent's answer when it is `ok`, else `Failed` with its words; the lines to say first;
    the socket that answered), asking the agent `at` (else the variable's). No answer there: the
    newest live forwarded connection answers instead (said); else, with `own_sign_in` and a sign-in
    of this machine's own, `OwnSignIn`: its files serve (said by the caller, `source.obtain`)."""
    where = at or socket_path() or ""
    try:
        answer = ask(request, where, on_asking=on_asking)
    except AgentUnavailable as exc:
        from tui.core.agent.client.trouble import no_answer  # lazy: the failure path only (figure 6)

        return no_answer(request, where, exc, own_sign_in, on_asking)
    return judged(request, answer), [], where


def judged(request: Request, answer: dict[str, Any]) -> dict[str, Any] | Failed:
    """The answer when it is `ok`, else `Failed` with its words for where it is read."""
    if not answer["ok"]:
        from tui.core.agent.client.trouble import refused  # lazy: the failure path only (figure 6)

        return refused(request, answer)
    return answer


def from_the_agent(
    selector: Selector,
    min_ttl: int | None,
    on_asking: Callable[[], object] | None,
    own_sign_in: Callable[[], bool],
) -> Issued | Failed | OwnSignIn:
    """`source.obtain` through the agent: `Issued` (with the socket that answered), `Failed`, or
    `OwnSignIn` when no agent of the person's answers and this machine's own sign-in serves
    instead (the caller reads the files)."""
    request = selector_request("token", selector, min_ttl)
    if isinstance(request, Failed):
        return request
    answer, notes, via = asked(request, on_asking, own_sign_in)
    if isinstance(answer, OwnSignIn):
        return answer
    if isinstance(answer, Failed):
        answer.notes = notes + answer.notes
        return answer
    token = answer.get("access_token")
    if not isinstance(token, str) or not usable_token(token):
        return Failed(EXIT_TRANSIENT, [said(Phrase(NO_USABLE_TOKEN))], notes)
    return Issued(token, answer=answer, notes=notes, via=via)
