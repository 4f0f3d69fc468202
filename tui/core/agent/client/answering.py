"""The wizard's side of `agent --confirm`: one connection to the agent on this machine that
answers its questions (allow once, allow this connection, deny). Blocking: a worker thread reads
the questions, the screen answers.

Only a wizard on the agent's own machine can offer: it shows the key read from the agent's private
directory (`proof.read_answer_key`). `offer` returns None where there is nothing to answer (no
agent, an agent that does not ask, another machine's agent)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from dataclasses import dataclass
from typing import BinaryIO

from tui.core.agent.client.proof import read_answer_key
from tui.core.agent.wire.protocol import (
    ANSWER_LINE,
    ASKED_UNDER_CONFIRM,
    ORIGINS,
    UNKNOWN,
    VERSION,
    Origin,
    Request,
    answer_line,
)
from tui.core.system.endpoint import Stranger
from tui.core.system.unix import connect_stream

CONNECT_TIMEOUT = 5.0
ASKABLE = tuple(sorted(ASKED_UNDER_CONFIRM))  # what a question may be about (anything else reads as a token)


@dataclass(frozen=True)
class Question:
    number: int
    connection: int
    origin: str  # "local", "forwarded" or "unknown"
    asked_for: str  # the selector as the request gave it ("" for the default slot): shown as plain text
    op: str = "token"  # what is asked: a token, the slots (status), the agent's events
    host: str = ""  # forwarded: the host the ssh connection reaches, as its command line names it (plain text)
    via: str = "ssh"  # forwarded: the program that relayed it (plain text)


@dataclass(frozen=True)
class Withdrawn:
    number: int  # the agent stopped waiting (no answer in time): that question is denied


class Answering:
    def __init__(self, conn: socket.socket, reader: BinaryIO) -> None:
        self.conn = conn
        self.reader = reader  # the one buffered reader of this connection (it may hold a question already)
        self.sending = threading.Lock()

    def next(self) -> Question | Withdrawn | None:
        """The agent's next message; None when the connection ends (the agent stopped)."""
        while True:
            try:
                line = self.reader.readline(ANSWER_LINE)
            except (OSError, ValueError):
                return None
            if not line or not line.endswith(b"\n"):
                return None
            message = _message(line)
            if message is not None:
                return message

    def answer(self, number: int, decision: str) -> None:
        with self.sending, contextlib.suppress(OSError):
            self.conn.sendall(answer_line(number, decision))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.reader.close()
        self.conn.close()


def offer(path: str) -> Answering | None:
    """A connection answering for the agent at `path`, or None (nothing to answer here)."""
    key = read_answer_key(path)
    if key is None:
        return None
    try:
        conn = connect_stream(path, CONNECT_TIMEOUT)  # the owner and peer checks every client makes
    except (Stranger, OSError):
        return None  # nothing of this person's to answer for there
    try:
        conn.settimeout(CONNECT_TIMEOUT)
        conn.sendall(Request("answerer", key=key).to_line())
        reader = conn.makefile("rb")
        first = reader.readline(ANSWER_LINE)
        conn.settimeout(None)  # from now on a wizard waits for questions as long as it is open
    except OSError:
        conn.close()
        return None
    try:
        data = json.loads(first)
    except ValueError:
        data = None
    if not isinstance(data, dict) or data.get("ok") is not True or data.get("answering") is not True:
        conn.close()
        return None
    return Answering(conn, reader)


def _message(line: bytes) -> Question | Withdrawn | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("v") != VERSION:
        return None
    gone = _whole(data.get("withdrawn"))
    if gone is not None:
        return Withdrawn(gone)
    number, connection = _whole(data.get("question")), _whole(data.get("connection"))
    if number is None or connection is None:
        return None
    said = data.get("origin")
    origin = Origin(said) if isinstance(said, str) and said in ORIGINS else UNKNOWN  # anything else: a stranger
    asked_for = data.get("asked_for")
    op = data.get("op") if data.get("op") in ASKABLE else "token"
    host = data.get("host") if isinstance(data.get("host"), str) else ""
    via = data.get("via") if isinstance(data.get("via"), str) and data.get("via") else "ssh"
    said_for = asked_for if isinstance(asked_for, str) else ""
    return Question(number, connection, origin, said_for, str(op), str(host), str(via))


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
