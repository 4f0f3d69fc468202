"""What `token`, `exec` and `status` say and do when the token agent does not answer, or refuses:
the newest live forwarded connection instead of one that has ended, this machine's own sign-in
where it has one, the cause said for where it is read. Loaded only then: `token` through the agent
is measured (`make bench`, figure 6)."""

from __future__ import annotations

import os

from tui.cli.agent.notes import UseLocal, waiting_for_approval
from tui.cli.output import EXIT_TRANSIENT, err
from tui.core.agent.client import forwarded
from tui.core.agent.client.ask import AgentUnavailable, ask, socket_path
from tui.core.agent.wire.causes import server_words
from tui.core.agent.wire.protocol import SOCKET_ENV, Request
from tui.core.phrase import N_, Phrase, said
from tui.core.untrusted import one_line


def no_answer(request: Request, exc: AgentUnavailable, local: dict | None) -> dict | int:
    """No answer at the variable's socket: through the newest live forwarded connection; else this
    machine's own sign-in (UseLocal, said); else the exit code, the reason said."""
    through = _through_another(request, socket_path() or "")
    if through is not None:
        return through
    from tui.core.agent.client.presence import signed_in_here  # lazy: config.toml's reader (figure 6c)

    if local is not None and signed_in_here(local):
        err(one_line(said(Phrase(STALE_HERE, socket=socket_path() or "", variable=SOCKET_ENV)), 2000))
        raise UseLocal from None
    err(one_line(said(exc.args[0]), 2000))
    if os.path.isdir(forwarded.directory()):  # a server where connections register: none is live
        err(one_line(said(Phrase(NONE_LIVE, stable=forwarded.stable_path())), 2000))
    return EXIT_TRANSIENT


def refused(request: Request, answer: dict) -> int:
    """A refusal said for where it is read (a server: about the person's own machine); its exit code."""
    named = dict(request.selector)
    worded = server_words(answer.get("cause"), named.get("slot") or named.get("provider") or named.get("account"))
    if worded is not None:  # a server's reader: about the person's own machine, in its words
        err(one_line(said(Phrase(N_("assistant-auth: {problem}"), problem=worded[0])), 1000))
        return worded[1]
    err(one_line(answer.get("error") or said(Phrase(N_("the agent refused the request"))), 1000))
    if answer.get("hint"):
        err(one_line(answer["hint"], 1000))
    code = answer.get("exit")
    return code if isinstance(code, int) and not isinstance(code, bool) and code in (1, 2, 3) else EXIT_TRANSIENT


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
    for new in forwarded.candidates(where):
        try:
            answer = ask(request, new, on_asking=waiting_for_approval)
        except AgentUnavailable:
            continue
        os.environ[SOCKET_ENV] = new
        _said_fall_over(where, new)
        return refused(request, answer) if not answer["ok"] else answer
    return None


def _said_fall_over(where: str, new: str) -> None:
    stable = forwarded.stable_path()
    err(one_line(said(Phrase(FELL_OVER, old=where, new=new, variable=SOCKET_ENV, stable=stable)), 2000))


def fall_over(where: str) -> str | None:
    """The newest live forwarded connection when the one at `where` has ended (said in one line,
    and used for the rest of this command); None when there is none."""
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
