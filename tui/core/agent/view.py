"""What a person sees of an agent, as text both faces draw (the foreground log and the Textual
view, on the agent's machine or through the socket from Home): who serves, for how long, its
connections, its latest requests. Built from a snapshot (`Snapshot.parse`: the `events` and
`status` answers, typed and bounded once); never a token, since no answer that feeds it holds one."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from tui.core.spec.keys import named_account_label
from tui.core.text.humantime import relative
from tui.core.text.i18n import _
from tui.core.text.phrase import N_
from tui.core.text.untrusted import one_line

SHOWN_EVENTS = 50
WORDS = {  # the agent's events and outcomes, said in the reader's language (the events keep English)
    "connected": N_("connected"),
    "closed": N_("closed"),
    "refused": N_("refused"),
    "request": N_("request"),
    "served": N_("served"),
    "failed": N_("failed"),
    "sign in again": N_("sign in again"),
    "stopping": N_("stopping"),
    "busy": N_("busy"),
    "bad request": N_("bad request"),
    "denied": N_("denied"),
    "denied: no answer": N_("denied: no answer"),
    "denied: nobody to ask": N_("denied: nobody to ask"),
}


def _text(value: object, width: int = 80) -> str:
    return one_line(value, width) if isinstance(value, str) else ""


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Snapshot:
    socket: str
    pid: int | None
    started: float | None
    lifetime: float | None
    connections: list[dict[str, object]] = field(default_factory=list)
    events: list[dict[str, object]] = field(default_factory=list)
    slots: list[dict[str, object]] = field(default_factory=list)

    @classmethod
    def parse(cls, events: dict[str, object], status: dict[str, object] | None = None) -> Snapshot:
        pid = events.get("pid")
        connections = events.get("connections")
        happened = events.get("events")
        slots = (status or {}).get("slots")
        return cls(
            socket=_text(events.get("socket"), 300),
            pid=pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
            started=_number(events.get("started")),
            lifetime=_number(events.get("lifetime")),
            connections=[c for c in connections if isinstance(c, dict)][:500] if isinstance(connections, list) else [],
            events=[e for e in happened if isinstance(e, dict)][-SHOWN_EVENTS:] if isinstance(happened, list) else [],
            slots=[s for s in slots if isinstance(s, dict)][:50] if isinstance(slots, list) else [],
        )


def header(snapshot: Snapshot, now: float | None = None) -> str:
    now = time.time() if now is None else now
    parts = [_("Token agent, pid {pid}").format(pid=snapshot.pid if snapshot.pid is not None else "?")]
    if snapshot.started is not None:
        parts.append(_("started {when}").format(when=relative(snapshot.started - now)))
    if snapshot.started is not None and snapshot.lifetime is not None:
        parts.append(_("stops {when}").format(when=relative(snapshot.started + snapshot.lifetime - now)))
    return " · ".join(parts)


def slot_lines(snapshot: Snapshot) -> list[str]:
    lines = []
    for slot in snapshot.slots:
        raw = slot.get("name")
        account = named_account_label(raw) if isinstance(raw, str) else None  # `work (cn)`, as Home says it
        name = account or _text(slot.get("region")) or _text(raw, 60)
        usable = _("usable") if slot.get("usable") is True else _("not usable")
        who = _text(slot.get("identity"), 40)
        lines.append(f"{name}: {usable}" + (f" · {who}" if who else ""))
    return lines or [_("No slot yet: sign in on this machine (assistant-auth login).")]


def connection_lines(snapshot: Snapshot, now: float | None = None) -> list[str]:
    now = time.time() if now is None else now
    lines = []
    for connection in snapshot.connections:
        opened = _number(connection.get("opened"))
        requests = connection.get("requests") if isinstance(connection.get("requests"), int) else 0
        lines.append(
            _("#{number} {origin}, connected {when}, {requests} requests").format(
                number=connection.get("number") if isinstance(connection.get("number"), int) else "?",
                origin=_origin(connection.get("origin")),
                when=relative(opened - now) if opened is not None else "?",
                requests=requests,
            )
        )
    return lines or [_("No client is connected.")]


def event_line(event: dict[str, object]) -> str:
    """One request or connection: when, which connection, from where, what, which slot, how it
    ended."""
    at = _number(event.get("at"))
    clock = time.strftime("%H:%M:%S", time.localtime(at)) if at is not None and 0 <= at < 253402300799 else "--:--:--"
    number = event.get("connection") if isinstance(event.get("connection"), int) else "?"
    parts = [clock, f"#{number}", _origin(event.get("origin")), _word(event.get("kind"))]
    parts += [_text(event.get("op"), 20), _text(event.get("slot"), 60), _word(event.get("outcome"))]
    return one_line(" ".join(part for part in parts if part), 300)


def _word(value: object) -> str:
    text = _text(value, 40)
    return _(WORDS[text]) if text in WORDS else text


def _origin(value: object) -> str:
    return {"forwarded": _("forwarded"), "local": _("local"), "unknown": _("unknown")}.get(
        value if isinstance(value, str) else "", ""
    )
