"""The agent's protocol, version 1: one JSON object per line each way, UTF-8, bounded.

A request names an operation and, for `token`, which slot (the selector flags of `token`: a
region, a slot or a provider, at most one) and the lifetime the token must still have:

    {"v": 1, "op": "token", "region": "global", "min_ttl": 300}
    {"v": 1, "op": "ping"}
    {"v": 1, "op": "status"}
    {"v": 1, "op": "events"}
    {"v": 1, "op": "stop"}
    {"v": 1, "op": "answerer", "key": "…"}

`ping` is the liveness answer (`{"v": 1, "ok": true, "alive": true}`: no identity, no path) that
`ssh` and the relay need. Which operation is answered to whom is the server's policy
(`tui.core.agent.server.agent.POLICY`): `stop` never to a forwarded connection; under `--confirm`,
`token`, `status` and `events` only to a connection the person allowed. Any request may carry
the answer `key` (a wizard on the agent's own machine, which read it there): that connection is
the person's own, and asks nothing.

`answerer` is a wizard on the agent's own machine offering to answer `--confirm`'s questions; its
`key` is read from the agent's private directory (`client.proof.read_answer_key`), which a process on a
server cannot read. Once accepted (`{"v": 1, "ok": true, "answering": true}`), the connection
carries questions from the agent and answers back, until either side closes it:

    {"v": 1, "question": 7, "connection": 3, "origin": "forwarded", "op": "token", "asked_for": "region global"}
    {"v": 1, "op": "answer", "question": 7, "answer": "once"}      (once, connection or deny)
    {"v": 1, "withdrawn": 7}                                        (the wait ran out: denied)

While an answer takes (a refresh, a person asked with `--confirm`), the agent sends
`{"v": 1, "working": true}` every 2 seconds, so a client tells a working agent from a stopped one;
a request with `"notify": true` also gets `{"v": 1, "working": true, "asking": true}` at once when
the person is asked.
The answer says `ok`; a token answer carries the access token and what `token --json` shows of it,
never a refresh token (`answer_fields` is the one list of what may be sent); a failure carries the
message and the exit code the asking command ends with (1 sign in again, 2 the request cannot be
met, 3 try again):

    {"v": 1, "ok": true, "access_token": "…", "expires_at": 1767225600, "slot": "…", "region": "cn", "identity": "…"}
    {"v": 1, "ok": false, "error": "…", "hint": "…", "exit": 1}

Pure functions only: parsing a request (`parse_request`) and building answers; the server and the
client do the I/O.
"""

from __future__ import annotations

import enum  # loaded by `json` already (through `re`): an enum costs the token path nothing more
import json

from tui.core.errors import EXIT_TRANSIENT, EXIT_USAGE
from tui.core.slots.selector import AGENT_FLAGS, DEFAULT, Selector

VERSION = 1
REQUEST_LINE = 4096  # bytes: the longest request line read (a request is under 200)
ANSWER_LINE = (1 << 20) + 4096  # bytes: the longest answer line read (an access token is at most 1 MiB)


class Word(str, enum.Enum):
    """A word of the protocol: a member is its string on the wire (in JSON, in a format, as a key),
    and a string read from the wire is turned into one once, where it is parsed."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, spec: str) -> str:
        return str.__format__(str.__str__(self), spec)

    __hash__ = str.__hash__


class Origin(Word):
    """Where a connection comes from, as the agent judged it: this machine, a server through ssh,
    or a process the system cannot place (treated as a server until it proves it is on this machine)."""

    LOCAL = "local"
    FORWARDED = "forwarded"
    UNKNOWN = "unknown"


class Decision(Word):
    """A person's answer to a question under --confirm: allow once, allow this connection, deny."""

    ONCE = "once"
    CONNECTION = "connection"
    DENY = "deny"


LOCAL, FORWARDED, UNKNOWN = Origin.LOCAL, Origin.FORWARDED, Origin.UNKNOWN
ORIGINS = tuple(Origin)

# every operation, once: (asked about under --confirm, served to the agent's own machine only)
OPS = {
    "token": (True, False),
    "ping": (False, False),
    "status": (True, False),
    "events": (True, False),
    "stop": (False, True),
    "answerer": (False, False),
}
OPERATIONS = tuple(OPS)
ASKED_UNDER_CONFIRM = frozenset(op for op, (asked, _own) in OPS.items() if asked)
OWN_MACHINE_ONLY = frozenset(op for op, (_asked, own) in OPS.items() if own)
DECISIONS = tuple(Decision)
SELECTORS = AGENT_FLAGS  # at most one, or an account with its region (the Selector's, tui.core.slots.selector)
MAX_TTL = 86400  # seconds: the longest lifetime a token can be asked to still have
TOKEN_FIELDS = ("access_token", "expires_at", "slot", "region", "identity")  # all a token answer carries
EXIT_UNMET, EXIT_AGAIN = EXIT_USAGE, EXIT_TRANSIENT  # the exit codes an answer carries (core.errors)


class BadRequest(ValueError):
    """A request line that is not a request of this protocol (said back, then the line is dropped)."""


class Request:
    """One request: the operation, which slot (a `Selector` of at most one of SELECTORS, or an
    account with its region), the lifetime asked for. A plain class, not a dataclass: `token`
    through the agent stays as light as from the file (dataclasses costs 30 ms to import)."""

    __slots__ = ("op", "selector", "min_ttl", "key", "notify")

    def __init__(
        self,
        op: str,
        selector: Selector = DEFAULT,
        min_ttl: int | None = None,
        key: str | None = None,
        notify: bool = False,
    ) -> None:
        self.op = op
        self.selector = selector
        self.min_ttl = min_ttl
        self.key = key  # `answerer`; on any other request, the proof of a wizard on the agent's machine
        self.notify = notify  # the client wants the ASKING line when the person is asked (--confirm)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Request) and (self.op, self.selector, self.min_ttl) == (
            other.op,
            other.selector,
            other.min_ttl,
        )

    def __hash__(self) -> int:
        return hash((self.op, self.selector, self.min_ttl))

    def __repr__(self) -> str:
        return f"Request({self.op!r}, {self.selector!r}, {self.min_ttl!r})"

    def asked_for(self) -> str:
        """What a token request names, as a question about it says it ("region global", "account
        work (global)"; "" for the default slot)."""
        return self.selector.asked_for()

    def to_line(self) -> bytes:
        data: dict[str, object] = {"v": VERSION, "op": self.op, **self.selector.given()}
        if self.min_ttl is not None:
            data["min_ttl"] = self.min_ttl
        if self.key is not None:
            data["key"] = self.key
        if self.notify:
            data["notify"] = True
        return encode(data)


def encode(data: object) -> bytes:
    """One line of the protocol (ASCII JSON: nothing in it can be a control character)."""
    return (json.dumps(data, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")


def parse_request(line: bytes) -> Request:
    """The request in `line`; BadRequest with a short reason otherwise."""
    if len(line) > REQUEST_LINE:
        raise BadRequest(f"request longer than {REQUEST_LINE} bytes")
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        raise BadRequest("not a JSON object") from None
    if not isinstance(data, dict):
        raise BadRequest("not a JSON object")
    if data.get("v") != VERSION:
        raise BadRequest(f"protocol version {VERSION} expected")
    op = data.get("op")
    if op not in OPERATIONS:
        raise BadRequest("unknown operation")
    named = [(name, data[name]) for name in SELECTORS if data.get(name) is not None]
    names = [name for name, _value in named]
    if (len(names) > 1 and names != ["account", "region"]) or any(
        not isinstance(value, str) or not 0 < len(value) <= 256 for _, value in named
    ):
        raise BadRequest("at most one of region, slot, provider (or an account and its region), each a short string")
    selector = Selector(**dict(named))
    min_ttl = data.get("min_ttl")
    if min_ttl is not None and (
        isinstance(min_ttl, bool) or not isinstance(min_ttl, int) or not 0 <= min_ttl <= MAX_TTL
    ):
        raise BadRequest(f"min_ttl must be a whole number of seconds from 0 to {MAX_TTL}")
    key = data.get("key")
    if op == "answerer" and key is None:
        raise BadRequest("answerer needs its key")
    if key is not None and (not isinstance(key, str) or not 0 < len(key) <= 64):
        raise BadRequest("a key is a short string")
    return Request(str(op), selector, min_ttl, key, data.get("notify") is True)


def question(
    number: int, connection: int, origin: str, op: str, asked_for: str, host: str = "", via: str = "ssh"
) -> bytes:
    return encode(
        {
            "v": VERSION,
            "question": number,
            "connection": connection,
            "origin": origin,
            "op": op,
            "asked_for": asked_for,
            "host": host,
            "via": via,
        }
    )


def withdrawn(number: int) -> bytes:
    return encode({"v": VERSION, "withdrawn": number})


def parse_answer(line: bytes) -> tuple[int, Decision] | None:
    """(the question, the decision) of an answerer's line, or None for anything else."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("v") != VERSION or data.get("op") != "answer":
        return None
    number, decision = data.get("question"), data.get("answer")
    if isinstance(number, bool) or not isinstance(number, int) or not isinstance(decision, str):
        return None
    return (number, Decision(decision)) if decision in DECISIONS else None


def answer_line(number: int, decision: str) -> bytes:
    return encode({"v": VERSION, "op": "answer", "question": number, "answer": decision})


WORKING = encode({"v": VERSION, "working": True})  # sent every 2 s while an answer takes: keep waiting
# sent at once, to a request that asked with `notify`, when the person at the agent's machine is asked
# (--confirm): the client says it waits for approval there. A client that did not ask never gets it.
ASKING = encode({"v": VERSION, "working": True, "asking": True})


def token_answer(fields: dict[str, object]) -> bytes:
    """A token answer: the fields of `TOKEN_FIELDS`, and nothing else whatever `fields` holds."""
    return encode({"v": VERSION, "ok": True, **{name: fields.get(name) for name in TOKEN_FIELDS}})


def failure(
    error: str, exit_code: int, hint: str = "", retry_after: int | None = None, cause: str | None = None
) -> bytes:
    """A refusal; `retry_after`: seconds after which the same request can be met; `cause`: why,
    for a reader on a server to be told in its own words (`tui.core.agent.wire.causes`)."""
    data: dict[str, object] = {"v": VERSION, "ok": False, "error": error, "hint": hint, "exit": exit_code}
    if retry_after is not None:
        data["retry_after"] = retry_after
    if cause is not None:
        data["cause"] = cause
    return encode(data)


def answer(data: dict[str, object]) -> bytes:
    """Any other answer (status, stop): `ok` and the fields given."""
    return encode({"v": VERSION, "ok": True, **data})
