"""Where this machine's tokens come from, as values: the variable read (`socket_path`, in this
one place, never written), the five answers (`Source`) and what the one source (`source`) gives
back: `Issued`, `Failed`, `Served`, each with the socket that answered (`via`), and `OwnSignIn`
where no agent answers and this machine's own sign-in serves. Below every client module: none of
them imports `source`, which decides. On `token`'s path: `os` and `enum` (which `json` loads
anyway)."""

from __future__ import annotations

import enum
import os

from tui.core.agent.wire import SOCKET_ENV

TYPE_CHECKING = False  # not `from typing import`: on `token`'s path
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


class Source(str, enum.Enum):
    """Where this machine's tokens come from."""

    FILES = "files"  # this machine's own credential files (no agent, or none answers and a sign-in is here)
    AGENT_HERE = "agent here"  # an agent serving this machine's files: the agent's own machine
    FORWARDED = "forwarded"  # the person's own machine's agent, through a forwarded connection
    OTHER_HOME = "another home"  # an agent serving another home's sign-in (a container, another config dir)
    UNREACHABLE = "unreachable"  # an agent is pointed at and nothing answers for it

    @property
    def elsewhere(self) -> bool:
        """Tokens come from another machine or home (or should, and nobody answers): a sign-in here
        would store the refresh token the agent keeps away, and a refresh happens there."""
        return self in (Source.FORWARDED, Source.OTHER_HOME, Source.UNREACHABLE)


FILES, AGENT_HERE, FORWARDED, OTHER_HOME, UNREACHABLE = (
    Source.FILES,
    Source.AGENT_HERE,
    Source.FORWARDED,
    Source.OTHER_HOME,
    Source.UNREACHABLE,
)


def socket_path() -> str | None:
    """The agent's socket this process is pointed at, or None (no agent: this machine's files)."""
    return os.environ.get(SOCKET_ENV) or None


def source_of(alive: dict[str, object], same_home: bool) -> Source:
    """What an agent's `ping` answer says it serves: asked through a forward, the person's own
    machine's sign-in; another config dir (`same_home` False), another home's; else this one's."""
    if alive.get("asked_from") == "forwarded":
        return FORWARDED
    return AGENT_HERE if same_home else OTHER_HOME


class Issued:
    """A token: from the agent at `via` (`answer`, its fields) or from this machine's files
    (`chosen`; `via` None)."""

    __slots__ = ("answer", "chosen", "notes", "token", "via")

    def __init__(
        self,
        token: str,
        answer: dict[str, Any] | None = None,
        chosen: object = None,
        notes: list[str] | None = None,
        via: str | None = None,
    ):
        self.token = token
        self.answer = answer
        self.chosen = chosen
        self.notes: list[str] = notes or []
        self.via = via


class Failed:
    """No token: what to say, and the exit code (1 sign in again, 2 usage, 3 try again)."""

    __slots__ = ("code", "lines", "notes")

    def __init__(self, code: int, lines: list[str], notes: list[str] | None = None) -> None:
        self.code = code
        self.lines = lines
        self.notes: list[str] = notes or []


class Served:
    """Where tokens come from here, as `served()` found it."""

    __slots__ = ("answer", "asked", "notes", "problem", "via", "where")

    def __init__(
        self,
        where: Source,
        asked: str | None = None,
        via: str | None = None,
        answer: dict[str, Any] | None = None,
        problem: str = "",
        notes: list[str] | None = None,
    ) -> None:
        self.where = where
        self.asked = asked  # the variable's socket, when it is set
        self.via = via  # the socket that answered (the variable's, or a live connection fallen over to)
        self.answer = answer  # its `ping`
        self.problem = problem  # why the variable's socket did not answer, said
        self.notes: list[str] = notes or []

    @property
    def elsewhere(self) -> bool:
        """This machine gets its tokens from another (or nobody answers where it should)."""
        return self.where.elsewhere

    @property
    def pid(self) -> int | None:
        pid = (self.answer or {}).get("pid")
        return pid if isinstance(pid, int) and not isinstance(pid, bool) else None

    @property
    def exit_code(self) -> int:
        from tui.core.errors import EXIT_OK, EXIT_TRANSIENT  # lazy: off token's path

        return EXIT_TRANSIENT if self.where == UNREACHABLE else EXIT_OK


class OwnSignIn:
    """No agent answers, and this machine has a sign-in of its own for the slot: its files serve,
    and `note` says why the agent was not used."""

    __slots__ = ("note",)

    def __init__(self, note: str) -> None:
        self.note = note
