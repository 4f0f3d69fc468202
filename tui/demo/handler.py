"""The HTTP side of the local authorization server: requests recorded, faults injected for the
reliability suite, the JSON endpoints and the approval page. What the endpoints answer is the
`AuthServer`'s (`tui.demo.server`); this module only speaks HTTP."""

from __future__ import annotations

import html
import json
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, cast
from urllib.parse import parse_qs, urlsplit

DEVICE_PATH = "/api/oauth/device_authorization"
TOKEN_PATH = "/api/oauth/token"  # noqa: S105 - a URL path, not a secret
PAGE_PATH = "/device"


@dataclass
class RecordedRequest:
    method: str
    path: str
    form: dict[str, str]
    headers: dict[str, str]
    time: float


@dataclass
class Fault:
    """A canned misbehaviour for the next `times` requests to a path.

    mode: "respond" (status/body), "hang" (accept, never answer until the server stops),
    "reset" (close the connection without answering), "trickle" (send the response one byte at a
    time with `delay` seconds between bytes).
    """

    status: int = 500
    body: bytes | str = b""
    content_type: str = "application/json"
    mode: str = "respond"
    delay: float = 0.0
    times: int = 1
    gate: threading.Event | None = None  # "respond" waits for it (a test says when), at most 60 s
    answered: threading.Event | None = None  # set once a "respond" answer has been written to the socket


class Traffic:
    """What the server received, and the faults waiting for the next requests to a path."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)  # notified with each request recorded
        self.received: list[RecordedRequest] = []
        self.faults: dict[str, list[Fault]] = {}
        self.stopping = threading.Event()  # the server stops: hanging and trickling answers end

    def record(self, request: RecordedRequest) -> None:
        with self.arrived:
            self.received.append(request)
            self.arrived.notify_all()

    def requests(self, path: str | None = None, grant_type: str | None = None) -> list[RecordedRequest]:
        """The requests received so far to `path` (of `grant_type`), in order."""
        with self.lock:
            return _matching(self.received, path, grant_type)

    def wait_for(self, count: int, path: str | None = None, grant_type: str | None = None, *, timeout: float) -> bool:
        """Until at least `count` requests to `path` (of `grant_type`) have arrived (True), or
        `timeout` seconds (False): woken by each request, never polling, so a test waits on the
        arrival itself rather than on a clock."""
        with self.arrived:
            return self.arrived.wait_for(lambda: len(_matching(self.received, path, grant_type)) >= count, timeout)

    def inject(self, path: str, fault: Fault) -> None:
        with self.lock:
            self.faults.setdefault(path, []).append(fault)

    def take_fault(self, path: str) -> Fault | None:
        with self.lock:
            queue = self.faults.get(path)
            if not queue:
                return None
            fault = queue[0]
            fault.times -= 1
            if fault.times <= 0:
                queue.pop(0)
            return fault


def _matching(received: list[RecordedRequest], path: str | None, grant_type: str | None) -> list[RecordedRequest]:
    return [
        r
        for r in received
        if (path is None or r.path == path) and (grant_type is None or r.form.get("grant_type") == grant_type)
    ]


class Endpoints(Protocol):
    """What the handler asks of the server behind it (`tui.demo.server.AuthServer`)."""

    traffic: Traffic
    date_offset: float

    def device_authorization(self, form: dict[str, str]) -> tuple[int, dict]: ...

    def token(self, form: dict[str, str]) -> tuple[int, dict]: ...

    subject: str  # who approves by default (the page's "Approve as" field starts with it)

    def decide(self, user_code: str, approve: bool, subject: str | None = None) -> bool: ...


class Server(ThreadingHTTPServer):
    """The listening socket, with the endpoints its handlers answer from."""

    auth: Endpoints

    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket], client_address: Any) -> None:
        """A client that went away before its answer was written (a `token` stopped with Ctrl+C,
        a closed browser tab, a test's killed process) is not the server's error: nothing is
        printed on the terminal `assistant-auth demo` runs in. Anything else is reported as the
        standard library does."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    """One HTTP request to the server: recorded, perhaps answered by an injected fault, else by
    the `AuthServer`'s endpoint logic (JSON) or the approval page (HTML)."""

    protocol_version = "HTTP/1.1"
    server_version = "assistant-devserver"

    def log_message(self, format: str, *args: object) -> None:  # quiet: tests read `requests`
        pass

    @property
    def auth(self) -> Endpoints:
        return cast(Server, self.server).auth

    def _read_form(self) -> dict[str, str]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        parsed = parse_qs(raw.decode("utf-8", errors="replace"), keep_blank_values=True)
        return {key: values[0] for key, values in parsed.items()}

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: dict) -> None:
        self._send(status, json.dumps(data).encode())

    def _apply_fault(self, fault: Fault) -> None:
        body = fault.body.encode("utf-8") if isinstance(fault.body, str) else fault.body
        if fault.mode == "hang":
            self.auth.traffic.stopping.wait(timeout=60)
            self.close_connection = True
            return
        if fault.mode == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.close_connection = True
            return
        if fault.delay and fault.mode == "respond":
            time.sleep(fault.delay)
        if fault.gate is not None and fault.mode == "respond":
            fault.gate.wait(timeout=60)
        if fault.mode == "trickle":
            head = (
                f"HTTP/1.1 {fault.status} X\r\nContent-Type: {fault.content_type}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            ).encode()
            try:
                for byte in head + body:
                    if self.auth.traffic.stopping.is_set():
                        break
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(fault.delay)
            except OSError:
                pass
            self.close_connection = True
            return
        self._send(fault.status, body, fault.content_type)
        if fault.answered is not None:
            fault.answered.set()

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        path = urlsplit(self.path).path
        form = self._read_form()
        self.auth.traffic.record(RecordedRequest("POST", path, form, dict(self.headers.items()), time.time()))
        fault = self.auth.traffic.take_fault(path)
        if fault is not None:
            self._apply_fault(fault)
            return
        if path == DEVICE_PATH:
            self._json(*self.auth.device_authorization(form))
        elif path == TOKEN_PATH:
            self._json(*self.auth.token(form))
        elif path == PAGE_PATH:
            ok = self.auth.decide(form.get("user_code", ""), form.get("action") == "approve", form.get("subject"))
            verdict = form.get("action") == "approve" and "approved" or "denied"
            message = f"Device {verdict}. You can close this page." if ok else "Unknown, used or expired code."
            self._page(message, status=200 if ok else 400)
        else:
            self._json(404, {"error": "not_found"})

    def date_time_string(self, timestamp: float | None = None) -> str:
        return super().date_time_string((time.time() if timestamp is None else timestamp) + self.auth.date_offset)

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        parts = urlsplit(self.path)
        self.auth.traffic.record(RecordedRequest("GET", parts.path, {}, dict(self.headers.items()), time.time()))
        if parts.path == PAGE_PATH:
            code = parse_qs(parts.query).get("user_code", [""])[0]
            self._page(None, code)
        else:
            self._json(404, {"error": "not_found"})

    def _page(self, message: str | None, code: str = "", status: int = 200) -> None:
        note = f"<p class=msg>{html.escape(message)}</p>" if message else ""
        body = f"""<!doctype html><html><head><meta charset=utf-8><title>Authorize device</title>
<style>body{{font-family:sans-serif;max-width:28em;margin:4em auto}}input{{font-size:1.5em;letter-spacing:.1em}}</style>
</head><body><h1>Authorize a device</h1>{note}
<form method=post action="{PAGE_PATH}"><p><label>Code shown in your terminal<br>
<input name=user_code value="{html.escape(code)}" autofocus autocomplete=off></label></p>
<p><label>Approve as (who is signed in to this browser: a second account can be another person)<br>
<input name=subject value="{html.escape(self.auth.subject)}" autocomplete=off></label></p>
<p><button name=action value=approve>Approve</button> <button name=action value=deny>Deny</button></p>
</form><p><small>Local test server of assistant-auth. Never use it for a real account.</small></p>
</body></html>"""
        self._send(status, body.encode(), "text/html; charset=utf-8")
