"""When the token agent does not answer, or refuses: the newest live forwarded connection instead
of one that has ended, this machine's own sign-in where it has one, the cause said for where it
is read; and `look`, the blocking judgement behind `source.served`. Loaded only then: `token`
through the agent is measured (`make bench`, figure 6)."""

from __future__ import annotations

import os

from tui.core.agent.client import forwarded
from tui.core.agent.client.ask import AgentUnavailable, NotOurs, ask
from tui.core.agent.served import FILES, FORWARDED, UNREACHABLE, Served, source_of
from tui.core.agent.where import Failed, OwnSignIn
from tui.core.agent.wire.causes import server_words
from tui.core.agent.wire.naming import SOCKET_ENV
from tui.core.agent.wire.protocol import Request
from tui.core.errors import EXIT_TRANSIENT, EXIT_USAGE
from tui.core.spec import paths
from tui.core.text.phrase import N_, Phrase, said
from tui.core.text.untrusted import one_line

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from tui.core.slots.selector import Selector

FELL_OVER = N_(
    "assistant-auth: the connection at {old} has ended; tokens come through the newest live one, {new} "
    "(set {variable} to {stable} to follow the newest connection)."
)
NONE_LIVE = N_(
    "assistant-auth: no other forwarded connection answers either ({stable}): reconnect with `assistant-auth ssh`."
)
STALE_HERE = N_(
    "assistant-auth: the token agent at {socket} ({variable}) does not answer; this machine's own sign-in is "
    'used instead. Restart the agent (eval "$(assistant-auth agent)") or unset {variable}.'
)
LOOK = 10.0  # seconds for a `ping`'s answer


def line(phrase: Phrase) -> str:
    return one_line(said(phrase), 2000)


def unfit(problem: str, selector: Selector) -> Failed:
    """An account the agent's listing has not, or has in both regions (`listing.selected`'s
    problem): a usage error, worded for a server as a refusal by the agent is."""
    worded = server_words(problem, selector)
    sentence, code = worded if worded is not None else (problem, EXIT_USAGE)
    return Failed(code, [line(Phrase(N_("assistant-auth: {problem}"), problem=sentence))])


def stale_here(where: str) -> str:
    return line(Phrase(STALE_HERE, socket=where, variable=SOCKET_ENV))


def no_answer(
    request: Request,
    where: str,
    exc: AgentUnavailable,
    own_sign_in: Callable[[], bool] | None,
    on_asking: Callable[[], object] | None = None,
) -> tuple[dict[str, Any] | Failed | OwnSignIn, list[str], str | None]:
    """No answer at `where` (the variable's socket): (the answer, the lines to say first, the
    socket that answered) through the newest live forwarded connection; else this machine's own
    sign-in (`OwnSignIn`, with why the agent was not used); else `Failed` (3), the reason said."""
    for new in forwarded.candidates(where):  # no look first: the request itself is the look
        try:
            answer = ask(request, new, on_asking=on_asking)
        except AgentUnavailable:
            continue
        return (answer if answer["ok"] else refused(request, answer)), [_fell_over(where, new)], new
    if own_sign_in is not None and own_sign_in():  # said: why the agent was not used, and that the files are
        return OwnSignIn(line(exc.args[0]) if isinstance(exc, NotOurs) else stale_here(where)), [], None
    lines = [line(exc.args[0])]
    if os.path.isdir(forwarded.directory()):  # a server where connections register: none is live
        lines.append(line(Phrase(NONE_LIVE, stable=forwarded.stable_path())))
    return Failed(EXIT_TRANSIENT, lines), [], None


def refused(request: Request, answer: dict[str, Any]) -> Failed:
    """A refusal said for where it is read (a server: about the person's own machine), with its
    exit code (the cause's, from the one table; else the agent's)."""
    named = request.selector
    worded = server_words(answer.get("cause"), named)
    if worded is not None:  # a server's reader: about the person's own machine, in its words
        return Failed(worded[1], [line(Phrase(N_("assistant-auth: {problem}"), problem=worded[0]))])
    lines = [one_line(answer.get("error") or said(Phrase(N_("the agent refused the request"))), 1000)]
    if answer.get("hint"):
        lines.append(one_line(answer["hint"], 1000))
    code = answer.get("exit")
    if isinstance(code, int) and not isinstance(code, bool) and code in (1, 2, 3):
        return Failed(code, lines)
    return Failed(EXIT_TRANSIENT, lines)


def _fell_over(where: str, new: str) -> str:
    stable = forwarded.stable_path()
    return line(Phrase(FELL_OVER, old=where, new=new, variable=SOCKET_ENV, stable=stable))


# -- looking: `source.served` -------------------------------------------------------------------------


def look(where: str, own_sign_in: Callable[[], bool]) -> Served:
    """Where tokens come from with the variable set to `where`: its agent's `ping` says whose
    files it serves; no answer there: the newest live forwarded connection (said), this machine's
    own sign-in (said), or nobody (the reason)."""
    try:
        alive = ask(Request("ping"), where, timeout=LOOK)
    except AgentUnavailable as exc:
        new = forwarded.newest_live(where)
        if new is not None:
            try:
                answer: dict[str, Any] | None = ask(Request("ping"), new, timeout=LOOK)
            except AgentUnavailable:
                answer = None
            notes = [_fell_over(where, new)]
            return Served(FORWARDED, where, new, answer=answer, problem=line(exc.args[0]), notes=notes)
        if own_sign_in():
            return Served(FILES, where, problem=line(exc.args[0]), notes=[stale_here(where)])
        return Served(UNREACHABLE, where, problem=line(exc.args[0]))
    return Served(source_of(alive, _serves_this_home(alive)), where, where, answer=alive)


def same_files(home: str) -> bool:
    """`home` (an agent's config dir, from its `ping`) is this process's config dir."""
    try:
        return os.path.samefile(home, paths.config_dir_str())
    except OSError:
        return os.path.realpath(home) == os.path.realpath(paths.config_dir_str())


def _serves_this_home(alive: dict[str, object]) -> bool:
    """An agent's `ping` answer names this process's config dir as the one it serves."""
    home = alive.get("home")
    return isinstance(home, str) and same_files(home)
