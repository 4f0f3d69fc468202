"""Where this machine's tokens come from, as values: the variable read (`socket_path`, in this
one place), the four answers (FILES, AGENT_HERE, ELSEWHERE, UNREACHABLE) and what the one source
(`source`) gives back: `Issued`, `Failed`, `Served`. Below every client module: none of them
imports `source`, which decides. On `token`'s path: plain `os`."""

from __future__ import annotations

import os

from tui.core.agent.wire import SOCKET_ENV

TYPE_CHECKING = False  # not `from typing import`: on `token`'s path
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

FILES, AGENT_HERE, ELSEWHERE, UNREACHABLE = "files", "agent here", "elsewhere", "unreachable"


def socket_path() -> str | None:
    """The agent's socket this process is pointed at, or None (no agent: this machine's files)."""
    return os.environ.get(SOCKET_ENV) or None


def point_at(path: str) -> None:
    """Use the agent at `path` for the rest of this command (a fall-over to a live connection)."""
    os.environ[SOCKET_ENV] = path


class Issued:
    """A token: from the agent (`answer`, its fields) or from this machine's files (`chosen`)."""

    __slots__ = ("answer", "chosen", "notes", "token")

    def __init__(
        self, token: str, answer: dict[str, Any] | None = None, chosen: object = None, notes: list[str] | None = None
    ):
        self.token = token
        self.answer = answer
        self.chosen = chosen
        self.notes: list[str] = notes or []


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
        where: str,
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
        """This machine gets its tokens from another (or nobody answers where it should): a sign-in
        here would store the refresh token the agent keeps away, and a refresh happens there."""
        return self.where in (ELSEWHERE, UNREACHABLE)

    @property
    def pid(self) -> int | None:
        pid = (self.answer or {}).get("pid")
        return pid if isinstance(pid, int) and not isinstance(pid, bool) else None

    @property
    def exit_code(self) -> int:
        from tui.core.errors import EXIT_OK, EXIT_TRANSIENT  # lazy: off token's path

        return EXIT_TRANSIENT if self.where == UNREACHABLE else EXIT_OK


class UseFiles(Exception):
    """No agent answers, and this machine has a sign-in of its own for the slot: its files serve."""
