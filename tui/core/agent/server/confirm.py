"""`--confirm`: who is asked, and how a person's answer comes back.

In the foreground view the agent asks in its own view (`ask`, a callback of the app); elsewhere it
asks a wizard on its own machine that proved itself with the answer key (`Answerer`: the wizard's
connection carries questions one way and answers the other). No answer within `wait` seconds is
deny; a question nobody can be asked is NOBODY (denied, and said so)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tui.core.agent.wire.protocol import Decision, Request, parse_answer, question, withdrawn
from tui.core.bounded import within
from tui.core.system.process import alive

ALLOW_ONCE, ALLOW_CONNECTION, DENY = Decision.ONCE, Decision.CONNECTION, Decision.DENY  # the wire's one table
NOBODY = "nobody"  # --confirm with no place to ask right now: denied, and said so
UNANSWERED = "unanswered"  # nobody answered within the wait: denied, try again
CONFIRM_WAIT = 30.0  # seconds a person has to answer; no answer is deny
DENIED = "denied at your own machine: the person at the token agent did not allow this request"
NO_ANSWER = "no answer at your own machine within the wait (--confirm): try again, and answer there"
NOBODY_THERE = (
    "the agent asks before serving a new connection (--confirm), and no wizard is open on its machine to ask "
    "in: open assistant-auth there, then try again"
)


@dataclass
class Connection:
    number: int
    origin: str
    opened: float = field(default_factory=time.time)
    requests: int = 0
    allowed: bool = False  # with --confirm: the person allowed it (or it showed the answer key: the agent's machine)
    ssh: tuple[int, int] | None = None  # forwarded: the SSH connection it came through (ssh's pid, start time)
    host: str = ""  # forwarded: the host that ssh reaches
    via: str = "ssh"  # forwarded: the program that relays it (ssh, sshd, socat, ...)


Ask = Callable[[Connection, Request], Awaitable[str]]
Send = Callable[[asyncio.StreamWriter, bytes], Awaitable[None]]


@dataclass
class Answerer:
    """A wizard on the agent's machine answering --confirm's questions over its connection."""

    number: int
    writer: asyncio.StreamWriter
    pending: dict[int, asyncio.Future[str]] = field(default_factory=dict)


class Confirm:
    def __init__(
        self, send: Send, ask: Ask | None = None, answer_key: str | None = None, in_wizard: bool = False
    ) -> None:
        self.send = send
        self.ask = ask  # --confirm in the foreground view: asked before a connection's requests
        # the key beside the socket: a program that shows it runs on this machine (every agent that
        # could write one); with `in_wizard` (--confirm elsewhere), a wizard showing it is asked
        self.answer_key = answer_key
        self.in_wizard = in_wizard
        self.answerers: list[Answerer] = []
        self.questions = 0
        self.wait = CONFIRM_WAIT
        self.allowed_ssh: set[tuple[int, int]] = set()  # SSH connections the person allowed, every request through them

    @property
    def active(self) -> bool:
        """The agent was started with --confirm."""
        return self.ask is not None or (self.in_wizard and self.answer_key is not None)

    def is_answer_key(self, key: str) -> bool:
        """`key` is the answer key, compared as bytes in constant time: `compare_digest` refuses a
        `str` that is not ASCII with a TypeError (a dropped connection and a traceback in the log,
        which any process on a server could cause); such a key is a wrong one like any other."""
        if self.answer_key is None or not isinstance(key, str):
            return False
        return secrets.compare_digest(key.encode("utf-8", "surrogatepass"), self.answer_key.encode("ascii"))

    def recognise(self, connection: Connection) -> bool:
        """The connection is allowed: by the person's answer to it, or because it came through an
        SSH connection the person allowed (another socket connection through the same forward)."""
        if connection.ssh is not None and connection.ssh in self.allowed_ssh:
            connection.allowed = True
        return connection.allowed

    async def decision(self, connection: Connection, request: Request) -> str:
        """The person's answer (allow once, allow this connection, deny), in the foreground view or
        else in a wizard on this machine (NOBODY when none is open); no answer within `wait`
        seconds is deny. Without --confirm, or for an allowed connection: allowed."""
        if self.recognise(connection):
            return ALLOW_CONNECTION
        ask = self.ask or (self._ask_a_wizard if self.answer_key is not None else None)
        if ask is None:
            return ALLOW_ONCE
        try:
            decision = await within(ask(connection, request), self.wait)
        except asyncio.TimeoutError:
            decision = UNANSWERED
        if decision == ALLOW_CONNECTION:
            connection.allowed = True
            if connection.ssh is not None:  # "this connection" is the SSH connection: until it closes
                self._remember(connection.ssh)
        return decision

    def _remember(self, ssh: tuple[int, int]) -> None:
        """An SSH connection allowed; those whose ssh process has ended are forgotten (a reused
        pid has another start time: it never inherits an allowance)."""
        self.allowed_ssh = {known for known in self.allowed_ssh if alive(known[0])}
        self.allowed_ssh.add(ssh)

    async def _ask_a_wizard(self, connection: Connection, request: Request) -> str:
        """The question to the wizard that offered last; withdrawn (denied) when the wait runs out."""
        if not self.answerers:
            return NOBODY
        wizard = self.answerers[-1]
        self.questions += 1
        number = self.questions
        answered: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        wizard.pending[number] = answered
        try:
            asked = question(
                number,
                connection.number,
                connection.origin,
                request.op,
                request.asked_for(),
                connection.host,
                connection.via,
            )
            await self.send(wizard.writer, asked)
            return await answered
        except (OSError, ConnectionError, asyncio.TimeoutError):
            return DENY
        finally:
            unanswered = answered.cancelled() or not answered.done()  # the wait's end cancels the future
            if wizard.pending.pop(number, None) is not None and unanswered:
                with contextlib.suppress(Exception):  # the wait ran out: the wizard closes its question
                    await self.send(wizard.writer, withdrawn(number))

    async def answers(self, wizard: Answerer, reader: asyncio.StreamReader, running: Callable[[], bool]) -> None:
        """An accepted wizard's answers, read until it closes (it may stay idle: a wizard waits for
        questions); its open questions are denied when it goes."""
        self.answerers.append(wizard)
        try:
            while running():
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    return
                if not line:
                    return
                parsed = parse_answer(line)
                future = wizard.pending.get(parsed[0]) if parsed is not None else None
                if parsed is not None and future is not None and not future.done():
                    future.set_result(parsed[1])
        finally:
            self.answerers.remove(wizard)
            for future in wizard.pending.values():
                if not future.done():
                    future.set_result(DENY)
