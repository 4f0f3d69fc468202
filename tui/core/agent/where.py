"""What the one source (`source`) gives back on `token`'s path, as values: the variable read
(`SOCKET_ENV`, `socket_path`: in this one place, never written), `Issued` (with the socket that
answered, `via`) and `Failed`, and `OwnSignIn` where no agent answers and this machine's own
sign-in serves. Where tokens come from as a judgement (`Source`, `Served`) is
`served`, loaded where an agent is pointed at or a command looks before it acts. Below every
client module: none of them imports `source`, which decides. On `token`'s path: `os` alone."""

from __future__ import annotations

import os

SOCKET_ENV = "ASSISTANT_AUTH_SOCK"  # the agent a client asks: read here alone (`socket_path`)

TYPE_CHECKING = False  # not `from typing import`: on `token`'s path
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


def socket_path() -> str | None:
    """The agent's socket this process is pointed at, or None (no agent: this machine's files)."""
    return os.environ.get(SOCKET_ENV) or None


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


class OwnSignIn:
    """No agent answers, and this machine has a sign-in of its own for the slot: its files serve,
    and `note` says why the agent was not used."""

    __slots__ = ("note",)

    def __init__(self, note: str) -> None:
        self.note = note
