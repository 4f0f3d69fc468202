"""Asking the agent: one blocking request over `ASSISTANT_AUTH_SOCK`, for `token`, `exec` and
`status` on a machine where the agent's socket is forwarded.

An agent that does not answer (no socket, the connection dropped, the agent stopped or killed, an
answer that is not one) is `AgentUnavailable`, said in one line naming the socket and what to do;
the caller exits 3. Nothing falls back to a credential file: a server with a forwarded socket
never holds a refresh token, and must never start using one it finds."""

from __future__ import annotations

import _socket  # not `socket`: 7 ms of imports (enum, selectors) on `token`'s path through the agent
import errno
import json
import time

from tui.core.agent.client.proof import read_answer_key
from tui.core.agent.where import socket_path
from tui.core.agent.wire.naming import SOCKET_ENV, ended_of, is_forwarded
from tui.core.agent.wire.protocol import ANSWER_LINE, ASKING, VERSION, WORKING, Request
from tui.core.files.owner import whose
from tui.core.files.regular import read_regular
from tui.core.system.endpoint import Stranger, connect_checked
from tui.core.system.facts import in_ssh_session
from tui.core.text.phrase import N_, Phrase
from tui.core.text.untrusted import clean

TYPE_CHECKING = False  # not `from typing import`: this module is on `token`'s path through the agent
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

CONNECT_TIMEOUT = 5.0  # seconds to reach the socket
ANSWER_TIMEOUT = 90.0  # seconds for an answer in all: a refresh (10 s) after the slot's locks (up to 30 s), or a person
STALL = 10.0  # seconds without a line: the agent sends `working` every 2 s while it works, so it has stopped


class AgentUnavailable(Exception):
    """The agent at the socket did not answer; the message says where and what to do."""


class NotOurs(AgentUnavailable):
    """The socket, or the process at its other end, is another user's: nothing is sent to it and
    nothing it would say is believed (a path in a shared /tmp bound before the person's forward)."""


NOT_OURS = N_(
    "assistant-auth: the socket {socket} ({variable}) belongs to {owner}, not to you: nothing was sent to it "
    "and nothing it says is trusted. Point {variable} at your own agent's socket, or unset it."
)


def ask(
    request: Request,
    path: str | None = None,
    timeout: float = ANSWER_TIMEOUT,
    stall: float = STALL,
    on_asking: Callable[[], object] | None = None,
) -> dict[str, object]:
    """The agent's answer to `request` (a dict with `ok`); AgentUnavailable when there is none:
    no socket, no line for `stall` seconds (a stopped agent), or no answer within `timeout`.
    `on_asking` is called once, at once, when the agent asks its person first (--confirm)."""
    where = path or socket_path() or ""
    if on_asking is not None:
        request.notify = True
    _prove_local(request, where)
    conn = _connect(where)
    try:
        return _exchange(conn, where, request, timeout, stall, on_asking)
    finally:
        conn.close()


class Session:
    """One connection kept for many requests (the relay's: `--confirm` asks once for it, when the
    person allows the connection). The agent closes a connection that sends nothing for 10 s: a
    session asks something more often than that. A kept connection that has gone is replaced once
    by a fresh one; AgentUnavailable when that fails too, or once `interrupt` was called."""

    def __init__(self, path: str | None = None) -> None:
        self.where = path or socket_path() or ""
        self.conn: _socket.socket | None = None
        self.interrupted = False

    def ask(self, request: Request, timeout: float = ANSWER_TIMEOUT, stall: float = STALL) -> dict[str, object]:
        while True:
            if self.interrupted:
                raise _unavailable(self.where, Phrase(N_("the wait was interrupted")))
            fresh = self.conn is None
            _prove_local(request, self.where)
            conn = self.conn = self.conn or _connect(self.where)
            try:
                return _exchange(conn, self.where, request, timeout, stall)
            except AgentUnavailable:
                self.close()
                if fresh:
                    raise

    def interrupt(self) -> None:
        """End the wait in hand at once (a signal handler's call: the read returns, the session
        asks nothing more)."""
        self.interrupted = True
        conn = self.conn
        if conn is not None:
            try:
                conn.shutdown(_socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


PROVEN = ("ping", "status", "events", "stop")  # asked with the key when it can be read: `token` is not


def _prove_local(request: Request, where: str) -> None:
    """A program on the agent's own machine shows the key beside its socket (`proof`) with what it
    asks about the agent itself: where the system cannot say who connects, that makes it local (a
    server cannot read the file), so `stop` and this machine's paths reach it. A token request
    shows none: under --confirm a program asking for a token is asked about, wherever it runs."""
    if request.key is None and request.op in PROVEN:
        request.key = read_answer_key(where)


def _connect(where: str) -> _socket.socket:
    """A connection to the agent at `where`, trusted for who owns it: the socket (where a link
    leads) must be the person's own or root's before anything is sent, and the process at the other
    end the person's or root's where the system says who it is (the mirror of the agent's own peer
    check). Anything else is `NotOurs`."""
    try:
        return connect_checked(where, CONNECT_TIMEOUT)  # the one checked connect (`tui.core.system.endpoint`)
    except Stranger as exc:
        raise _not_ours(where, exc.uid) from None
    except TimeoutError:
        raise _unavailable(where, Phrase(N_("it did not answer in time"))) from None
    except OSError as exc:
        gone = exc.errno in (errno.ENOENT, errno.ECONNREFUSED)  # no socket, or nobody listening on it
        raise _unavailable(where, exc.strerror or str(exc), GONE if gone else "") from None


def _not_ours(where: str, uid: int) -> NotOurs:
    return NotOurs(Phrase(NOT_OURS, socket=where, variable=SOCKET_ENV, owner=whose(uid)))


def _exchange(
    conn: _socket.socket,
    where: str,
    request: Request,
    timeout: float,
    stall: float,
    on_asking: Callable[[], object] | None = None,
) -> dict[str, object]:
    deadline = time.monotonic() + timeout  # for the whole answer, whatever arrives meanwhile
    try:
        conn.settimeout(min(stall, timeout))
        conn.sendall(request.to_line())
        line = _answer_line(conn, deadline, stall, on_asking)
    except TimeoutError:
        raise _unavailable(where, Phrase(N_("it did not answer in time"))) from None
    except OSError as exc:
        closed = exc.errno == 0 or exc.errno in (errno.EPIPE, errno.ECONNRESET)  # accepted, then closed
        raise _unavailable(where, exc.strerror or str(exc), CLOSED if closed else "") from None
    try:
        data = json.loads(line)
    except ValueError:
        data = None
    if not isinstance(data, dict) or data.get("v") != VERSION or not isinstance(data.get("ok"), bool):
        raise _unavailable(where, Phrase(N_("its answer is not one of this program's agent")))
    cleaned: dict[str, object] = printable(data)
    return cleaned


def printable(value: Any, key: str = "") -> Any:
    """An answer with every string in it (names and values) made one printable line
    (`untrusted.clean`), so no field an agent sends can forge a line, move the cursor or reorder
    text wherever it is shown; the access token is kept as sent (`usable_token` judges it)."""
    if isinstance(value, str):
        return value if key == "access_token" else clean(value, keep_newlines=False)
    if isinstance(value, list):
        return [printable(item) for item in value]
    if isinstance(value, dict):
        return {clean(name, keep_newlines=False): printable(item, str(name)) for name, item in value.items()}
    return value


def _answer_line(
    conn: _socket.socket, deadline: float, stall: float, on_asking: Callable[[], object] | None = None
) -> bytes:
    """The first line that is not a `working` line (sent while the agent works; the ASKING one
    calls `on_asking`). Each line must arrive whole within `stall` seconds of the one before, and
    the answer by `deadline`: a peer that trickles bytes without a newline is cut off at those
    bounds, not at each byte."""
    pending = b""
    while True:
        line, pending = read_line(conn, pending, min(time.monotonic() + stall, deadline))
        if line == ASKING.rstrip(b"\n"):
            if on_asking is not None:
                on_asking()
                on_asking = None
            continue
        if line != WORKING.rstrip(b"\n"):
            return line


def read_line(conn: _socket.socket, pending: bytes, deadline: float, most: int = ANSWER_LINE) -> tuple[bytes, bytes]:
    """(one line, what came after it) with `pending` read before, whole by `deadline`
    (TimeoutError after it) and at most `most` bytes long."""
    chunks = [pending]
    size = len(pending)
    while b"\n" not in chunks[-1]:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            raise OSError(0, "the connection closed before an answer")
        chunks.append(chunk)
        size += len(chunk)
        if size > most:
            raise OSError(0, "the answer is longer than any this protocol sends")
    line, _newline, rest = b"".join(chunks).partition(b"\n")
    return line, rest


GONE, CLOSED = "gone", "closed"  # no agent listens at the path; the path's peer closed without an answer
UNAVAILABLE_HERE = {
    GONE: N_(
        "The token agent at {socket} ({variable}) is not answering: it was stopped or killed (nothing listens "
        'there). Start it again (eval "$(assistant-auth agent)"), or unset {variable} to use this machine\'s own '
        "sign-in."
    ),
    CLOSED: N_(
        "The token agent at {socket} ({variable}) is not answering: it closed the connection without an answer "
        '(it is stopping, or was killed). Start it again (eval "$(assistant-auth agent)") if it does not come back.'
    ),
}
UNAVAILABLE_ON_A_SERVER = {
    GONE: N_(
        "The token agent at {socket} ({variable}) is not answering: the SSH connection that made this socket "
        "has ended. Reconnect with `assistant-auth ssh`."
    ),
    CLOSED: N_(
        "The token agent at {socket} ({variable}) is not answering: the SSH connection is there, but the agent on "
        "your own machine was stopped or killed, or its --lifetime ended. Start it there again "
        '(eval "$(assistant-auth agent)"); at its stable path it serves this connection again, otherwise '
        "reconnect with `assistant-auth ssh`."
    ),
}
LIFETIME_ENDED = N_(
    "The token agent at {socket} ({variable}) is not answering: its --lifetime ended at {time}. Start it again "
    '(eval "$(assistant-auth agent --lifetime …)"), or unset {variable}.'
)
UNAVAILABLE = N_(
    "The token agent at {socket} ({variable}) is not answering: {why}. Reconnect with `assistant-auth ssh`, "
    'start the agent on your own machine (eval "$(assistant-auth agent)"), or unset {variable} to use this '
    "machine's own sign-in."
)


def _unavailable(where: str, why: str, cause: str = "") -> AgentUnavailable:
    """The one line for an agent that does not answer, by its cause and where it is read: on a
    server (a forwarded socket) about the SSH connection and the person's own machine; on the
    agent's machine never "reconnect with ssh"."""
    server = on_a_server(where)
    if cause == GONE and not server:
        ended = _ended_at(where)
        if ended:
            return AgentUnavailable(Phrase(LIFETIME_ENDED, socket=where, variable=SOCKET_ENV, time=ended))
    table = UNAVAILABLE_ON_A_SERVER if server else UNAVAILABLE_HERE
    if cause in table:
        return AgentUnavailable(Phrase(table[cause], socket=where, variable=SOCKET_ENV))
    return AgentUnavailable(Phrase(UNAVAILABLE, socket=where, variable=SOCKET_ENV, why=why))


def on_a_server(where: str) -> bool:
    """`where` is read on a server: a forwarded socket by its name (`naming.is_forwarded`), or any
    socket when this process runs in an SSH session (a plain `ssh -R` to a path of the person's
    choosing): never the advice to start an agent here."""
    return is_forwarded(where) or in_ssh_session()


def _ended_at(where: str) -> str:
    """When the agent that listened at `where` stopped because its --lifetime ended ("" if it did not)."""
    try:  # a regular file only, never through a link: a FIFO there must not hang the command
        stamp = int(read_regular(ended_of(where), 32, follow_symlinks=False).strip())
    except (OSError, ValueError):
        return ""
    return time.strftime("%H:%M:%S", time.localtime(stamp)) if 0 < stamp < 253402300799 else ""
