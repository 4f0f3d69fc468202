"""Asking the agent: one blocking request over `ASSISTANT_AUTH_SOCK`, for `token`, `exec` and
`status` on a machine where the agent's socket is forwarded.

An agent that does not answer (no socket, the connection dropped, the agent stopped or killed, an
answer that is not one) is `AgentUnavailable`, said in one line naming the socket and what to do;
the caller exits 3. Nothing falls back to a credential file: a server with a forwarded socket
never holds a refresh token, and must never start using one it finds."""

from __future__ import annotations

import _socket  # not `socket`: 7 ms of imports (enum, selectors) on `token`'s path through the agent
import json
import os
import time

from tui.core.agent.protocol import ANSWER_LINE, SOCKET_ENV, VERSION, WORKING, Request
from tui.core.phrase import N_, Phrase

CONNECT_TIMEOUT = 5.0  # seconds to reach the socket
ANSWER_TIMEOUT = 90.0  # seconds for an answer in all: a refresh (10 s) after the slot's locks (up to 30 s), or a person
STALL = 10.0  # seconds without a line: the agent sends `working` every 2 s while it works, so it has stopped


class AgentUnavailable(Exception):
    """The agent at the socket did not answer; the message says where and what to do."""


def socket_path() -> str | None:
    """The agent's socket this process is pointed at, or None (no agent: use the files)."""
    return os.environ.get(SOCKET_ENV) or None


def ask(
    request: Request, path: str | None = None, timeout: float = ANSWER_TIMEOUT, stall: float = STALL
) -> dict[str, object]:
    """The agent's answer to `request` (a dict with `ok`); AgentUnavailable when there is none:
    no socket, no line for `stall` seconds (a stopped agent), or no answer within `timeout`."""
    where = path or socket_path() or ""
    conn = _connect(where)
    try:
        return _exchange(conn, where, request, timeout, stall)
    finally:
        conn.close()


class Session:
    """One connection kept for many requests (the relay's: `--confirm` asks once for it, when the
    person allows the connection). The agent closes a connection that sends nothing for 10 s: a
    session asks something more often than that. A kept connection that has gone is replaced once
    by a fresh one; AgentUnavailable when that fails too."""

    def __init__(self, path: str | None = None) -> None:
        self.where = path or socket_path() or ""
        self.conn: _socket.socket | None = None

    def ask(self, request: Request, timeout: float = ANSWER_TIMEOUT, stall: float = STALL) -> dict[str, object]:
        while True:
            fresh = self.conn is None
            conn = self.conn = self.conn or _connect(self.where)
            try:
                return _exchange(conn, self.where, request, timeout, stall)
            except AgentUnavailable:
                self.close()
                if fresh:
                    raise

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def _connect(where: str) -> _socket.socket:
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)  # the C socket: no context manager
    try:
        conn.settimeout(CONNECT_TIMEOUT)
        conn.connect(where)
    except TimeoutError:
        conn.close()
        raise _unavailable(where, Phrase(N_("it did not answer in time"))) from None
    except OSError as exc:
        conn.close()
        raise _unavailable(where, exc.strerror or str(exc)) from None
    return conn


def _exchange(conn: _socket.socket, where: str, request: Request, timeout: float, stall: float) -> dict[str, object]:
    try:
        conn.settimeout(stall)
        conn.sendall(request.to_line())
        line = _answer_line(conn, time.monotonic() + timeout)
    except TimeoutError:
        raise _unavailable(where, Phrase(N_("it did not answer in time"))) from None
    except OSError as exc:
        raise _unavailable(where, exc.strerror or str(exc)) from None
    try:
        data = json.loads(line)
    except ValueError:
        data = None
    if not isinstance(data, dict) or data.get("v") != VERSION or not isinstance(data.get("ok"), bool):
        raise _unavailable(where, Phrase(N_("its answer is not one of this program's agent")))
    return data


def _answer_line(conn: _socket.socket, deadline: float) -> bytes:
    """The first line that is not a `working` line (sent while the agent works)."""
    pending = b""
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError
        line, pending = _read_line(conn, pending)
        if line != WORKING.rstrip(b"\n"):
            return line


def _read_line(conn: _socket.socket, pending: bytes) -> tuple[bytes, bytes]:
    """(one line, what came after it) with `pending` read before; each recv bounded by the stall."""
    chunks = [pending]
    size = len(pending)
    while b"\n" not in chunks[-1]:
        chunk = conn.recv(65536)
        if not chunk:
            raise OSError(0, "the connection closed before an answer")
        chunks.append(chunk)
        size += len(chunk)
        if size > ANSWER_LINE:
            raise OSError(0, "the answer is longer than any this protocol sends")
    line, _newline, rest = b"".join(chunks).partition(b"\n")
    return line, rest


UNAVAILABLE = N_(
    "The token agent at {socket} ({variable}) is not answering: {why}. Reconnect with `assistant-auth ssh`, "
    'start the agent on your own machine (eval "$(assistant-auth agent)"), or unset {variable} to use this '
    "machine's own sign-in."
)


def _unavailable(where: str, why: str) -> AgentUnavailable:
    return AgentUnavailable(Phrase(UNAVAILABLE, socket=where, variable=SOCKET_ENV, why=why))
