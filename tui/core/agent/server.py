"""The agent's socket: many clients at once, each checked and bounded.

- **Peer check**: a connection from another user (its `SO_PEERCRED` uid, neither ours nor root's)
  is refused before a byte is read, as `ssh-agent` refuses it. The socket is 0600 in a 0700
  directory besides: this is the second wall.
- **Bounds**: a request line is at most `protocol.REQUEST_LINE` bytes (a longer one is answered
  with an error and the connection closed: memory stays bounded whatever a client sends); a
  request must arrive within `READ_TIMEOUT` seconds (a client that sends a byte a second is cut
  off); as many connections at once as the open-file limit allows (`connection_room`), more are
  answered "busy" and closed.
- **Nothing secret leaves**: answers come from `tokens` (access tokens only); events say the
  time, the connection, the slot and the outcome, never a token.
- **Stopping**: `stop()` (the `stop` request, SIGTERM, SIGHUP, SIGINT, `--lifetime`) closes the
  socket at once and waits for lookups in flight: a refresh already sent is stored first.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import resource
import secrets
import socket
import struct
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tui.core.agent import place
from tui.core.agent.protocol import (
    EXIT_AGAIN,
    REQUEST_LINE,
    WORKING,
    BadRequest,
    Request,
    answer,
    failure,
    parse_answer,
    parse_request,
    question,
    withdrawn,
)
from tui.core.agent.status import slots
from tui.core.agent.tokens import Tokens

READ_TIMEOUT = 10.0  # seconds for a request line to arrive whole
WRITE_TIMEOUT = 10.0  # seconds for an answer to be taken
DESCRIPTORS = 8192  # the open-file limit the agent asks for (within the hard limit)
SPARE = 64  # descriptors kept for the agent's own files, locks and HTTP connections
BACKLOG = 512
KEPT_EVENTS = 200  # the latest events kept for the view
HEARTBEAT = 2.0  # seconds between `working` lines while an answer takes


def connection_room() -> int:
    """Raise the soft open-file limit as far as the hard one allows (up to `DESCRIPTORS`) and
    say how many clients may be connected at once: a crowd of idle connections waits its read
    timeout out while the others are served."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = DESCRIPTORS if hard == resource.RLIM_INFINITY else min(hard, DESCRIPTORS)
    if wanted > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    return max(soft - SPARE, 16)


@dataclass(frozen=True)
class Event:
    """One thing the agent did, for its view and its log: never a token."""

    at: float
    connection: int
    kind: str  # "connected", "refused", "request", "closed"
    origin: str = ""  # "local" or "forwarded" (through ssh)
    op: str = ""
    slot: str = ""
    outcome: str = ""


@dataclass
class Connection:
    number: int
    origin: str
    opened: float = field(default_factory=time.time)
    requests: int = 0
    allowed: bool = False  # with --confirm: the person allowed this connection's requests


ALLOW_ONCE, ALLOW_CONNECTION, DENY = "once", "connection", "deny"  # what a person answers with --confirm
NOBODY = "nobody"  # --confirm with no place to ask right now: denied, and said so
CONFIRM_WAIT = 30.0  # seconds a person has to answer; no answer is deny
Ask = Callable[[Connection, Request], Awaitable[str]]
DENIED = "the person at the agent's machine did not allow this request"
NOBODY_THERE = (
    "the agent asks before serving a new connection (--confirm), and no wizard is open on its machine to ask "
    "in: open assistant-auth there, then try again"
)


@dataclass
class Answerer:
    """A wizard on the agent's machine answering --confirm's questions over its connection."""

    number: int
    writer: asyncio.StreamWriter
    pending: dict[int, asyncio.Future[str]] = field(default_factory=dict)


def peer(sock: socket.socket | None) -> tuple[int | None, int | None]:
    """(pid, uid) of the process at the other end, where the system says (Linux's SO_PEERCRED)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if sock is None or option is None:
        return None, None
    try:
        pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except OSError:
        return None, None
    return pid, uid


def origin_of(pid: int | None) -> str:
    """ "forwarded" when the peer is an `ssh` client (a server's request through `ssh -R`)."""
    if pid is None:
        return "local"
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as handle:
            name = handle.read().strip()
    except OSError:
        return "local"
    return "forwarded" if name == "ssh" else "local"


class Agent:
    def __init__(
        self,
        listener: socket.socket,
        path: str,
        *,
        lifetime: float | None = None,
        on_event: Callable[[Event], object] | None = None,
        ask: Ask | None = None,
        answer_key: str | None = None,
    ) -> None:
        self.listener = listener
        self.ask = ask  # --confirm in the foreground view: asked before a connection's token requests
        self.answer_key = answer_key  # --confirm elsewhere: asked in a wizard that shows this key
        self.answerers: list[Answerer] = []
        self.questions = 0
        self.confirm_wait = CONFIRM_WAIT
        self.path = path
        self.lifetime = lifetime
        self.on_event = on_event
        self.tokens = Tokens()
        self.connections: dict[int, Connection] = {}
        self.counter = 0
        self.room = 256
        self.started = time.time()
        self.events: deque[Event] = deque(maxlen=KEPT_EVENTS)
        self.answering: set[asyncio.Task[object]] = set()  # connections writing an answer now
        self._stopped: asyncio.Event | None = None
        self._server: asyncio.base_events.Server | None = None

    # -- running -------------------------------------------------------------------------------
    async def run(self, ready: Callable[[], object] | None = None) -> None:
        """Serve until `stop()` or the lifetime's end; the socket and its directory go at the end."""
        self._stopped = asyncio.Event()
        self.room = connection_room()
        self._server = await asyncio.start_unix_server(
            self._serve, sock=self.listener, limit=REQUEST_LINE, backlog=BACKLOG
        )
        try:
            if ready is not None:
                ready()
            if self.lifetime is None:
                await self._stopped.wait()
            else:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._stopped.wait(), self.lifetime)
        finally:
            self._server.close()
            place.remove(self.path)
            await self.tokens.drain()
            if self.answering:  # their answers are ready: let them be written, then end
                await asyncio.wait(self.answering, timeout=WRITE_TIMEOUT)

    def stop(self) -> None:
        if self._stopped is not None:
            self._stopped.set()

    def snapshot(self) -> dict[str, object]:
        """What the agent's view shows (the `events` answer): who it is, its connections now, its
        latest events. Never a token: events hold none."""
        return {
            "socket": self.path,
            "pid": os.getpid(),
            "started": self.started,
            "lifetime": self.lifetime,
            "connections": [dataclasses.asdict(c) for c in self.connections.values()],
            "events": [dataclasses.asdict(e) for e in self.events],
        }

    # -- one connection --------------------------------------------------------------------------
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.counter += 1
        number = self.counter
        pid, uid = peer(writer.get_extra_info("socket"))
        origin = origin_of(pid)
        try:
            if uid is not None and uid not in (os.geteuid(), 0):
                self._tell(Event(time.time(), number, "refused", origin, outcome=f"uid {uid}"))
                return
            if len(self.connections) >= self.room:
                await self._send(writer, failure("the agent is busy: too many connections", EXIT_AGAIN))
                self._tell(Event(time.time(), number, "refused", origin, outcome="busy"))
                return
            self.connections[number] = Connection(number, origin)
            self._tell(Event(time.time(), number, "connected", origin))
            await self._requests(number, origin, reader, writer)
        except (OSError, asyncio.TimeoutError, ConnectionError):
            pass  # the client went away or stopped reading: its connection ends, the others go on
        finally:
            if self.connections.pop(number, None) is not None:
                self._tell(Event(time.time(), number, "closed", origin))
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _requests(
        self, number: int, origin: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        while self._stopped is not None and not self._stopped.is_set():
            try:
                line = await asyncio.wait_for(reader.readline(), READ_TIMEOUT)
            except (ValueError, asyncio.LimitOverrunError):  # a line beyond the bound: said, then closed
                await self._send(writer, failure(f"request longer than {REQUEST_LINE} bytes", 2))
                return
            if not line:
                return
            try:
                request = parse_request(line)
            except BadRequest as exc:
                await self._send(writer, failure(f"bad request: {exc}", 2))
                self._tell(Event(time.time(), number, "request", origin, outcome="bad request"))
                continue
            self.connections[number].requests += 1
            if request.op == "answerer":  # the connection now carries questions and answers
                await self._answering(number, origin, request, reader, writer)
                return
            data, slot, outcome = await self._while_working(writer, self._answer(request, self.connections[number]))
            await self._send(writer, data)
            self._tell(Event(time.time(), number, "request", origin, request.op, slot, outcome))
            if request.op == "stop":
                self.stop()
                return

    async def _while_working(
        self, writer: asyncio.StreamWriter, answering: Awaitable[tuple[bytes, str, str]]
    ) -> tuple[bytes, str, str]:
        """The answer; while it takes (a refresh after the slot's locks, a person asked with
        --confirm), a `working` line every `HEARTBEAT` seconds: a client tells an agent that works
        from one that stopped (SIGSTOP) in seconds, not at the end of the longest refresh."""
        task = asyncio.ensure_future(answering)
        while True:
            done, _pending = await asyncio.wait({task}, timeout=HEARTBEAT)
            if done:
                return task.result()
            await self._send(writer, WORKING)

    async def _answer(self, request: Request, connection: Connection) -> tuple[bytes, str, str]:
        origin = connection.origin
        if request.op == "token":
            decision = await self._decision(connection, request)
            if decision == NOBODY:
                return failure(NOBODY_THERE, 2), "", "denied: nobody to ask"
            if decision not in (ALLOW_ONCE, ALLOW_CONNECTION):
                return failure(DENIED, 2), "", "denied"
            return await self.tokens.token(request)
        if request.op == "status":
            data = {"pid": os.getpid(), "started": int(self.started), "asked_from": origin, **slots()}
            return answer(data), "", "served"
        if request.op == "events":
            return answer(self.snapshot()), "", "served"
        return answer({"stopping": True}), "", "stopping"

    async def _decision(self, connection: Connection, request: Request) -> str:
        """With --confirm: the person's answer (allow once, allow this connection, deny), in the
        foreground view or else in a wizard on this machine (NOBODY when none is open); no answer
        within `confirm_wait` seconds is deny. Without --confirm: allowed."""
        if connection.allowed:
            return ALLOW_CONNECTION
        ask = self.ask or (self._ask_a_wizard if self.answer_key is not None else None)
        if ask is None:
            return ALLOW_ONCE
        try:
            decision = await asyncio.wait_for(ask(connection, request), self.confirm_wait)
        except asyncio.TimeoutError:
            decision = DENY
        if decision == ALLOW_CONNECTION:
            connection.allowed = True
        return decision

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
            await self._send(wizard.writer, question(number, connection.number, connection.origin, request.asked_for()))
            return await answered
        except (OSError, ConnectionError, asyncio.TimeoutError):
            return DENY
        finally:
            unanswered = answered.cancelled() or not answered.done()  # the wait's end cancels the future
            if wizard.pending.pop(number, None) is not None and unanswered:
                with contextlib.suppress(Exception):  # the wait ran out: the wizard closes its question
                    await self._send(wizard.writer, withdrawn(number))

    async def _answering(
        self, number: int, origin: str, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """An `answerer` connection: accepted with the agent's key only, then its answers are read
        until it closes (it may stay idle: a wizard waits for questions); its open questions are
        denied when it goes."""
        if self.answer_key is None or not secrets.compare_digest(request.key or "", self.answer_key):
            await self._send(writer, failure("this connection cannot answer for the agent", 2))
            self._tell(Event(time.time(), number, "request", origin, "answerer", outcome="refused"))
            return
        wizard = Answerer(number, writer)
        self.answerers.append(wizard)
        self._tell(Event(time.time(), number, "request", origin, "answerer", outcome="answering"))
        try:
            await self._send(writer, answer({"answering": True}))
            while self._stopped is not None and not self._stopped.is_set():
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

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        await asyncio.wait_for(writer.drain(), WRITE_TIMEOUT)

    def _tell(self, event: Event) -> None:
        self.events.append(event)
        if self.on_event is not None:
            with contextlib.suppress(Exception):
                self.on_event(event)
