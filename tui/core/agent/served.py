"""Where this machine's tokens come from, as a judgement: the five answers (`Source`), what an
agent's `ping` says it serves (`source_of`), and what `source.served` found (`Served`, with the
socket that answered). Not on `token`'s valid path: `source` loads it where an agent is pointed at
or a command looks before it acts."""

from __future__ import annotations

import enum

from tui.core.errors import EXIT_OK, EXIT_TRANSIENT

TYPE_CHECKING = False
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


def source_of(alive: dict[str, object], same_home: bool) -> Source:
    """What an agent's `ping` answer says it serves: asked through a forward, the person's own
    machine's sign-in; another config dir (`same_home` False), another home's; else this one's."""
    if alive.get("asked_from") == "forwarded":
        return FORWARDED
    return AGENT_HERE if same_home else OTHER_HOME


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
        return EXIT_TRANSIENT if self.where == UNREACHABLE else EXIT_OK
