"""The agent's socket: many clients at once, each checked and bounded.

- **Peer check**: a connection from another user (its uid as the system reports it,
  `tui.core.system.peercred`: neither ours nor root's) is refused before a byte is read, as
  `ssh-agent` refuses it. The socket is 0600 in a 0700
  directory besides: this is the second wall.
- **Bounds**: a request line is at most `protocol.REQUEST_LINE` bytes (a longer one is answered
  with an error and the connection closed: memory stays bounded whatever a client sends); a
  request must arrive within `READ_TIMEOUT` seconds (a client that sends a byte a second is cut
  off); as many connections at once as the open-file limit allows (`connection_room`), shared
  out by kind of peer and bounded per peer (`admission`): more are answered "busy" and closed,
  and a flood of one kind or one peer never takes the others' places.
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
import socket
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from tui.core.agent.server import place
from tui.core.agent.server.admission import Admission
from tui.core.agent.server.confirm import (
    ALLOW_CONNECTION,
    ALLOW_ONCE,
    DENIED,
    NO_ANSWER,
    NOBODY,
    NOBODY_THERE,
    UNANSWERED,
    Answerer,
    Ask,
    Confirm,
    Connection,
)
from tui.core.agent.server.peer import peer_of
from tui.core.agent.server.policy import (
    NOT_FROM_A_SERVER,
    Access,
    access,
    local_roots,
    without_cause,
    without_local_paths,
)
from tui.core.agent.server.status import slots
from tui.core.agent.server.tokens import Tokens
from tui.core.agent.wire.protocol import (
    ASKING,
    EXIT_AGAIN,
    LOCAL,
    REQUEST_LINE,
    UNKNOWN,
    WORKING,
    BadRequest,
    Request,
    answer,
    failure,
    parse_request,
)
from tui.core.bounded import within
from tui.core.errors import EXIT_SIGN_IN, EXIT_USAGE
from tui.core.spec import paths

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
        confirm_in_wizard: bool = False,
    ) -> None:
        self.listener = listener
        self.confirm = Confirm(self._send, ask, answer_key, confirm_in_wizard)  # the local proof; --confirm
        self.path = path
        self.lifetime = lifetime
        self.on_event = on_event
        self.tokens = Tokens()
        self.connections: dict[int, Connection] = {}
        self.counter = 0
        self.room = 256
        self.admission = Admission(self.room)
        self.started = time.time()
        self.events: deque[Event] = deque(maxlen=KEPT_EVENTS)
        self.answering: set[asyncio.Task[object]] = set()  # connections writing an answer now
        self._stopped: asyncio.Event | None = None
        self._server: asyncio.base_events.Server | None = None
        self._roots: list[tuple[str, str]] | None = None  # this machine's paths, kept out of forwarded answers

    # -- running -------------------------------------------------------------------------------
    async def run(self, ready: Callable[[], object] | None = None) -> None:
        """Serve until `stop()` or the lifetime's end; the socket and its directory go at the end."""
        self._stopped = asyncio.Event()
        self.room = connection_room()
        self.admission = Admission(self.room)
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
                    await within(self._stopped.wait(), self.lifetime)
                if not self._stopped.is_set():  # its --lifetime ended: a client there is told so
                    place.mark_ended(self.path)
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
        who = peer_of(writer.get_extra_info("socket"))
        uid, origin = who.uid, who.origin
        kind, peer = origin, who.ssh if who.ssh is not None else who.pid  # a forward's peer: its SSH connection
        admitted = False
        try:
            if uid is not None and uid not in (os.geteuid(), 0):
                self._tell(Event(time.time(), number, "refused", origin, outcome=f"uid {uid}"))
                return
            admitted = self.admission.admit(kind, peer)
            if not admitted:  # its kind's share, or its own bound, is full: the others are still served
                await self._send(writer, failure("the agent is busy: too many connections", EXIT_AGAIN))
                self._tell(Event(time.time(), number, "refused", origin, outcome="busy"))
                return
            self.connections[number] = Connection(number, origin, ssh=who.ssh, host=who.host, via=who.via)
            # a uid the system does not say: the socket's mode (0600 in a 0700 directory) is the wall, and said
            self._tell(Event(time.time(), number, "connected", origin, outcome="uid unknown" if uid is None else ""))
            await self._requests(number, origin, reader, writer)
        except (OSError, asyncio.TimeoutError, ConnectionError):
            pass  # the client went away or stopped reading: its connection ends, the others go on
        except asyncio.CancelledError:  # the agent stops with this connection open (a wizard answering): it
            pass  # ends here; re-raised, Python 3.11's streams would print the cancelled task as an error
        finally:
            if admitted:
                self.admission.release(kind, peer)
            if self.connections.pop(number, None) is not None:
                self._tell(Event(time.time(), number, "closed", origin))
            writer.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):  # as above: the agent stopping
                await writer.wait_closed()

    async def _requests(
        self, number: int, origin: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        while self._stopped is not None and not self._stopped.is_set():
            try:
                line = await within(reader.readline(), READ_TIMEOUT)
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
            connection = self.connections[number]
            connection.requests += 1
            if request.key is not None and request.op != "answerer" and self.confirm.is_answer_key(request.key):
                connection.allowed = True  # the answer key: a program on the agent's own machine
                if connection.origin == UNKNOWN:  # proof upgrades a stranger, never one known to be ssh
                    connection.origin = origin = LOCAL
            if request.op == "answerer":  # the connection now carries questions and answers
                await self._answering(number, origin, request, reader, writer)
                return
            allowed = self.confirm.recognise(connection)
            verdict = access(request.op, origin, confirm=self.confirm.active, allowed=allowed)
            if request.notify and verdict is Access.ASK:  # said at once: the client tells its person where to look
                await self._send(writer, ASKING)
            data, slot, outcome = await self._while_working(writer, self._answer(request, connection, verdict))
            if origin != LOCAL:  # forwarded, or a stranger: never a path of this machine
                data = without_local_paths(data, self._local_roots())
            else:
                data = without_cause(data)
            await self._send(writer, data)
            self._tell(Event(time.time(), number, "request", origin, request.op, slot, outcome))
            if request.op == "stop" and outcome == "stopping":
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

    def _local_roots(self) -> list[tuple[str, str]]:
        if self._roots is None:
            self._roots = local_roots(self.path)
        return self._roots

    @property
    def confirm_wait(self) -> float:
        """Seconds a person has to answer a question of --confirm."""
        return self.confirm.wait

    @confirm_wait.setter
    def confirm_wait(self, seconds: float) -> None:
        self.confirm.wait = seconds

    async def _answer(self, request: Request, connection: Connection, verdict: Access) -> tuple[bytes, str, str]:
        """The answer to one request, as the policy (`tui.core.agent.server.policy`) judged it (`verdict`)."""
        origin = connection.origin
        if verdict is Access.REFUSE:
            return failure(NOT_FROM_A_SERVER, 2), "", "refused"
        if verdict is Access.ASK:
            decision = await self.confirm.decision(connection, request)
            if decision == NOBODY:
                return failure(NOBODY_THERE, EXIT_AGAIN), "", "denied: nobody to ask"
            if decision == UNANSWERED:
                return failure(NO_ANSWER, EXIT_AGAIN), "", "denied: no answer"
            if decision not in (ALLOW_ONCE, ALLOW_CONNECTION):
                return failure(DENIED, EXIT_SIGN_IN), "", "denied"
        if request.op == "token":
            return await self.tokens.token(request)
        if request.op == "ping":
            alive: dict[str, object] = {"alive": True, "asked_from": origin}
            if origin == LOCAL:  # the agent's machine may know which process serves it, which files, how
                alive.update(
                    pid=os.getpid(), home=paths.config_dir_str(), confirm=self.confirm.active, lifetime=self.lifetime
                )
            return answer(alive), "", "served"
        if request.op == "status":
            data = {"pid": os.getpid(), "started": int(self.started), "asked_from": origin, **slots()}
            return answer(data), "", "served"
        if request.op == "events":
            return answer(self.snapshot()), "", "served"
        if request.op == "stop":
            return answer({"stopping": True}), "", "stopping"
        # an operation of the table this server does not serve here (answerer has its own path):
        # refused, never taken for another one (a new operation must never stop the agent)
        return failure(f"the agent does not serve {request.op!r} here", EXIT_USAGE), "", "refused"

    async def _answering(
        self, number: int, origin: str, request: Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """An `answerer` connection: accepted with the agent's key only, then it carries questions
        and answers (`Confirm.answers`) until it closes."""
        if not self.confirm.in_wizard or not self.confirm.is_answer_key(request.key or ""):
            # only an agent that asks in a wizard (--confirm in the background) takes answers, and
            # only from a program that shows its key (on this machine)
            await self._send(writer, failure("this connection cannot answer for the agent", 2))
            self._tell(Event(time.time(), number, "request", origin, "answerer", outcome="refused"))
            return
        self._tell(Event(time.time(), number, "request", origin, "answerer", outcome="answering"))
        await self._send(writer, answer({"answering": True}))
        await self.confirm.answers(Answerer(number, writer), reader, self._running)

    def _running(self) -> bool:
        return self._stopped is not None and not self._stopped.is_set()

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        writer.write(data)
        await within(writer.drain(), WRITE_TIMEOUT)

    def _tell(self, event: Event) -> None:
        self.events.append(event)
        if self.on_event is not None:
            with contextlib.suppress(Exception):
                self.on_event(event)
