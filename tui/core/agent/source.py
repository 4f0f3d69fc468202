"""Where this machine's tokens come from, decided once: the one answer `token`, `exec`, `status`,
`refresh`, `login`, `switch`, `logout`, `doctor` and Home ask (as OpenSSH's clients all ask
`ssh_get_authentication_socket`, and gh's commands `ActiveToken` and `AuthTokenWriteable`).

    ASSISTANT_AUTH_SOCK unset                      FILES        this machine's own credential files
    an agent answers and serves these files        AGENT_HERE   the agent's own machine: its files, as always
    an agent answers through a forward             FORWARDED    a server: no refresh token is needed or kept here
    an agent answers and serves another home       OTHER_HOME   a container, another config dir: as a server
    no agent answers at the variable:
      another forwarded connection answers         FORWARDED    through that one, said (`FELL_OVER`)
      this machine has a sign-in of its own        FILES        said (`STALE_HERE`)
      nothing                                      UNREACHABLE  the cause, said for where it is read

`obtain(selector, min_ttl)` gives a token by that same rule: `Issued` (the token, with the agent's
answer and the socket that answered, or the selection it came from) or `Failed` (the lines to say
and the exit code, from `tui.core.errors.EXIT`); both carry `notes`, lines said before the result
(a fall-over, a stale agent). `signs_in_here(selector)` is the one predicate of whether this
machine signs in and refreshes its own for a slot. The commands print what they get and decide
nothing; none of them writes the variable (a fall-over is carried as `via`).

On `token`'s path (tests/test_imports.py): plain `os` at the top; the agent's machinery loads only
where the variable is set, the files' only where they are read.
"""

from __future__ import annotations

from tui.core.agent.where import Failed, Issued, OwnSignIn, socket_path
from tui.core.slots.selector import DEFAULT, Selector

__all__ = [
    "Failed",
    "Issued",
    "ask_agent",
    "obtain",
    "served",
    "signed_in_here",
    "signs_in_here",
    "socket_path",
]

TYPE_CHECKING = False  # not `from typing import`: on `token`'s path
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    from tui.core.agent.served import Served
    from tui.core.agent.wire.protocol import Request


# -- tokens ------------------------------------------------------------------------------------------


def obtain(selector: Selector, min_ttl: int | None, on_asking: Callable[[], object] | None = None) -> Issued | Failed:
    """A token for the slot `selector` names by the one rule; `on_asking` is called at once when
    the agent asks its person first (--confirm)."""
    if socket_path():
        from tui.core.agent.client.through import from_the_agent  # lazy: only where an agent is pointed at

        got = from_the_agent(selector, min_ttl, on_asking, lambda: signed_in_here(selector))
        if not isinstance(got, OwnSignIn):
            return got
        return _from_files(selector, min_ttl, [got.note])  # said: why this machine's own sign-in serves
    return _from_files(selector, min_ttl, [])


def _from_files(selector: Selector, min_ttl: int | None, notes: list[str]) -> Issued | Failed:
    from tui.core.credentials.valid import read_valid_token  # lazy: the files' path only
    from tui.core.errors import AuthError  # lazy: off token's valid path
    from tui.core.slots.choice import select_for  # lazy: off token's valid path

    chosen = None
    try:
        chosen = select_for(selector)
        token = read_valid_token(chosen.ref, chosen.base_url, min_ttl)  # valid: no refresh machinery loads
        if token is None:
            from tui.core.credentials.refresh import get_access_token_sync  # lazy: only when a refresh is due

            token = get_access_token_sync(chosen.ref, chosen.base_url, min_ttl=min_ttl, refuse=chosen.refusal)
    except AuthError as exc:
        from tui.core.slots.choice import explain_for  # lazy: the failure path only

        explained = explain_for(exc, chosen, selector)  # its kind too: a named slot with no file is unknown
        return Failed(explained.exit_code, [explained.said()], notes)
    return Issued(token, chosen=chosen, notes=notes)


# -- where, for the commands that look before they act --------------------------------------------


def served(selector: Selector | None = None) -> Served:
    """Where this machine's tokens come from (blocking: one `ping`, and on no answer the newest
    live forwarded connection). `selector`: the slot whose own sign-in here counts when no agent
    answers (the default slot without one)."""
    from tui.core.agent.served import FILES, Served  # lazy: off token's path (an enum)

    where = socket_path()
    if where is None:
        return Served(FILES)
    from tui.core.agent.client.trouble import look  # lazy: only where an agent is pointed at

    return look(where, lambda: signed_in_here(selector))


def signs_in_here(selector: Selector | None = None, found: Served | None = None) -> bool:
    """This machine signs in and refreshes its own for the slot `selector` names: no agent is
    pointed at, the agent here serves this machine's files, or this machine holds a sign-in of its
    own for the slot. Not where its tokens come from another machine or home, or should and nobody
    answers: a sign-in there would store the refresh token the agent keeps away. The one predicate
    `login`, `refresh`, `switch`, `logout` and Home ask (blocking where an agent is pointed at:
    one `ping`, unless `found`, what `served` found already, is given: Home's worker looked)."""
    if socket_path() is None:
        return True
    return not (found or served(selector)).elsewhere or signed_in_here(selector)


def signed_in_here(selector: Selector | None = None) -> bool:
    """This machine holds a sign-in of its own for the slot `selector` names (a refresh token in
    its file): the agent's own machine, or a server someone signed in on. A server that the agent
    or the relay serves holds none, so it never falls back to a file there."""
    from tui.core.credentials.slot import try_load  # lazy: config.toml's reader, not on the fall-over (figure 6c)
    from tui.core.errors import AuthError  # lazy: as above
    from tui.core.slots.choice import select_for, storage_name_of  # lazy: as above

    try:
        creds = try_load(storage_name_of(select_for(selector or DEFAULT)))
    except AuthError:
        return False
    refresh = (creds or {}).get("refresh_token")
    return isinstance(refresh, str) and bool(refresh)


def ask_agent(
    request: Request, at: str | None = None, on_asking: Callable[[], object] | None = None
) -> tuple[dict[str, Any] | Failed, list[str], str | None]:
    """(the agent's answer to `request` when it is `ok`, else `Failed` with the words for where it
    is read; the lines to say first; the socket that answered): asking the agent `at` (a
    connection `served` fell over to; else the variable's), falling over to the newest live
    connection when that one has ended."""
    from tui.core.agent.client.through import asked  # lazy: only where an agent is pointed at
    from tui.core.errors import EXIT_TRANSIENT  # lazy: only where an agent is pointed at

    answer, notes, via = asked(request, on_asking, at=at)  # no `own_sign_in`: never OwnSignIn (typed as one)
    return (Failed(EXIT_TRANSIENT, [answer.note]) if isinstance(answer, OwnSignIn) else answer), notes, via
