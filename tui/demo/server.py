"""A local OAuth 2.0 authorization server for tests and the demo (RFC 8628 + refresh rotation).

Never used for real sign-ins: it is started explicitly (tests, `make demo`,
`python -m tui.demo.server`) and listens on 127.0.0.1 only.

Endpoints: POST /api/oauth/device_authorization, POST /api/oauth/token (device and refresh
grants), GET/POST /device (a page where a person types the user code and approves or denies).
Faults can be injected per path for the reliability suite (`inject`). The grants, tokens and
their rotation live here; the HTTP side (recorded requests, faults, the page) is
`tui.demo.handler`.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import secrets
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import quote

from tui.core.signin.protocol import DEVICE_GRANT
from tui.demo.handler import DEVICE_PATH, PAGE_PATH, TOKEN_PATH, Fault, Handler, RecordedRequest, Server, Traffic

__all__ = ["DEVICE_PATH", "PAGE_PATH", "TOKEN_PATH", "AuthServer", "Fault", "Grant", "RecordedRequest", "main"]

# how often the serving loop looks for a stop: Python's 0.5 s, paid at every test's end, was 4% of
# the suite's time; a select call every 50 ms costs no CPU to speak of
STOP_POLL = 0.05

USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"  # RFC 8628 6.1: no vowels, no look-alikes


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass
class Grant:
    device_code: str
    user_code: str
    created: float
    expires_at: float
    interval: int
    approve_at: float | None
    state: str = "pending"  # pending | approved | denied | consumed
    subject: str | None = None  # who approved on the page (None: the server's `subject`)
    last_poll: float | None = None
    polls: int = 0
    slow_downs: int = 0


@dataclass
class _State:
    grants: dict[str, Grant] = field(default_factory=dict)
    refresh_tokens: dict[str, dict] = field(default_factory=dict)


class AuthServer:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        interval: int = 5,
        device_ttl: int = 900,
        access_ttl: int = 900,
        auto_approve: float | None = None,
        client_id: str | None = None,
        slow_down_tolerance: float = 0.25,
        user_code_factory=None,
        verification_uri: str | None = None,
        include_complete_uri: bool = True,
        ssl_context=None,
        date_offset: float = 0.0,
    ) -> None:
        self.interval = interval
        self.device_ttl = device_ttl
        self.access_ttl = access_ttl
        self.auto_approve = auto_approve
        self.client_id = client_id
        self.slow_down_tolerance = slow_down_tolerance
        self.user_code_factory = user_code_factory
        self.verification_uri_override = verification_uri
        self.include_complete_uri = include_complete_uri
        self.refresh_delay = 0.0  # seconds to wait before answering a refresh grant (race tests)
        self.refresh_gate: threading.Event | None = None  # a refresh grant is answered once it is set (at most 60 s)
        # rotate as the request arrives, then wait for the gate and `refresh_delay` before answering: the old refresh
        # token is spent even if the client never reads the answer (interrupt tests)
        self.rotate_on_receipt = False
        self.expire_codes = True  # False: keep answering authorization_pending past a code's lifetime
        self.subject = "user-1"  # who a device sign-in signs in as (the `sub` claim of its token)
        # reuse of a rotated refresh token revokes every token of its family (as strict servers do)
        self.revoke_family_on_reuse = False
        self.revoked_families: set[str] = set()
        self.issued: list[tuple[str, str]] = []  # (access_token, refresh_token) pairs, in order
        self.secret = secrets.token_bytes(32)
        self.lock = threading.Lock()
        self.state = _State()
        self.traffic = Traffic()  # requests received, faults to come
        self.date_offset = date_offset  # seconds added to the Date header (a skewed server clock)
        self._httpd = Server((host, port), Handler)
        self.tls = ssl_context is not None
        if ssl_context is not None:  # https:// with the caller's certificate (a throw-away CA in tests)
            self._httpd.socket = ssl_context.wrap_socket(self._httpd.socket, server_side=True)
        self._httpd.daemon_threads = True
        self._httpd.auth = self
        self._thread: threading.Thread | None = None

    # -- life cycle -------------------------------------------------------------------------
    @property
    def url(self) -> str:
        host, port = str(self._httpd.server_address[0]), self._httpd.server_address[1]
        return f"{'https' if self.tls else 'http'}://{host}:{port}"

    def start(self) -> AuthServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(STOP_POLL,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.traffic.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread:
            self._thread.join(timeout=5)

    def __enter__(self) -> AuthServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- control from tests and the page ----------------------------------------------------
    def _grant_by_user_code(self, user_code: str) -> Grant | None:
        wanted = user_code.strip().upper().replace(" ", "")
        matches = [g for g in self.state.grants.values() if g.user_code.upper() == wanted or g.user_code == user_code]
        pending = [g for g in matches if g.state == "pending"]
        chosen = pending or matches
        return chosen[-1] if chosen else None  # the newest pending grant wins

    def decide(self, user_code: str, approve: bool, subject: str | None = None) -> bool:
        """Approve or deny `user_code`, as `subject` (who is signed in to the browser) when given."""
        with self.lock:
            grant = self._grant_by_user_code(user_code)
            if grant is None or grant.state != "pending" or time.time() >= grant.expires_at:
                return False
            grant.state = "approved" if approve else "denied"
            grant.subject = approver(subject)
            return True

    def approve(self, user_code: str, subject: str | None = None) -> bool:
        return self.decide(user_code, True, subject)

    def deny(self, user_code: str) -> bool:
        return self.decide(user_code, False)

    def inject(self, path: str, fault: Fault | None = None, **kwargs) -> None:
        fault = fault or Fault(**kwargs)
        self.traffic.inject(path, fault)

    def requests(self, path: str | None = None, grant_type: str | None = None) -> list[RecordedRequest]:
        return self.traffic.requests(path, grant_type)  # waiting for some: `traffic.wait_for`

    def count(self, path: str | None = None, grant_type: str | None = None) -> int:
        return len(self.requests(path, grant_type))

    def refreshes(self) -> list[RecordedRequest]:
        """The refresh-grant requests received so far."""
        return self.requests(TOKEN_PATH, "refresh_token")

    def grants(self) -> list[Grant]:
        with self.lock:
            return list(self.state.grants.values())

    # -- tokens ------------------------------------------------------------------------------
    def _jwt(self, subject: str, scope: str, ttl: int) -> str:
        now = int(time.time())
        header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
        claims = {"sub": subject, "iat": now, "exp": now + ttl, "scope": scope, "jti": secrets.token_hex(8)}
        payload = _b64(json.dumps(claims, separators=(",", ":")).encode())
        signing_input = f"{header}.{payload}".encode()
        signature = _b64(hmac.new(self.secret, signing_input, hashlib.sha256).digest())
        return f"{header}.{payload}.{signature}"

    def issue_tokens(self, subject: str = "user-1", scope: str = "coding", family: str | None = None) -> dict:
        """A fresh token response; the refresh token is registered for rotation in `family`
        (a new family for a new sign-in)."""
        refresh = "rt_" + secrets.token_urlsafe(24)
        access = self._jwt(subject, scope, self.access_ttl)
        with self.lock:
            self.state.refresh_tokens[refresh] = {
                "sub": subject,
                "scope": scope,
                "used": False,
                "family": family or secrets.token_hex(6),
            }
            self.issued.append((access, refresh))
        return {
            "access_token": access,
            "refresh_token": refresh,
            "expires_in": self.access_ttl,
            "scope": scope,
            "token_type": "Bearer",
        }

    def new_user_code(self) -> str:
        if self.user_code_factory is not None:
            return self.user_code_factory()
        chars = [secrets.choice(USER_CODE_ALPHABET) for _ in range(8)]
        return "".join(chars[:4]) + "-" + "".join(chars[4:])

    def approve_on_page(self, user_code: str, subject: str | None = None) -> str:
        """Approve `user_code` as a person would, as `subject` (None: the default): a POST of the
        approval page's form. Returns the page's verdict in words (for the demo's `a` key)."""
        form = urllib.parse.urlencode({"user_code": user_code, "action": "approve", "subject": subject or ""}).encode()
        try:
            with urllib.request.urlopen(self.url + PAGE_PATH, data=form, timeout=5) as answer:  # noqa: S310 - this server's own http:// page
                answer.read()
        except urllib.error.HTTPError as exc:
            return f"The approval page refused the code (HTTP {exc.code}): it is unknown, used or expired."
        except OSError as exc:
            return f"The approval page did not answer: {exc}"
        return "Approved on the local approval page: the next poll signs you in."

    def verification_uri(self) -> str:
        return self.verification_uri_override or self.url + PAGE_PATH

    # -- endpoint logic (called by the handler; returns status and JSON) ---------------------
    def device_authorization(self, form: dict[str, str]) -> tuple[int, dict]:
        if not form.get("client_id") or (self.client_id and form["client_id"] != self.client_id):
            return 401, {"error": "invalid_client", "error_description": "unknown client_id"}
        now = time.time()
        user_code = self.new_user_code()
        grant = Grant(
            device_code="dc_" + secrets.token_urlsafe(24),
            user_code=user_code,
            created=now,
            expires_at=now + self.device_ttl,
            interval=self.interval,
            approve_at=None if self.auto_approve is None else now + self.auto_approve,
        )
        with self.lock:
            self.state.grants[grant.device_code] = grant
        body = {
            "user_code": user_code,
            "device_code": grant.device_code,
            "verification_uri": self.verification_uri(),
            "expires_in": self.device_ttl,
            "interval": self.interval,
        }
        if self.include_complete_uri:
            body["verification_uri_complete"] = f"{self.verification_uri()}?user_code={quote(user_code)}"
        return 200, body

    def token(self, form: dict[str, str]) -> tuple[int, dict]:
        if not form.get("client_id") or (self.client_id and form["client_id"] != self.client_id):
            return 401, {"error": "invalid_client"}
        grant_type = form.get("grant_type")
        if grant_type == DEVICE_GRANT:
            return self._device_grant(form.get("device_code", ""))
        if grant_type == "refresh_token":
            return self._refresh_grant(form.get("refresh_token", ""))
        return 400, {"error": "unsupported_grant_type"}

    def _device_grant(self, device_code: str) -> tuple[int, dict]:
        now = time.time()
        with self.lock:
            grant = self.state.grants.get(device_code)
            if grant is None or grant.state == "consumed":
                return 400, {"error": "invalid_grant", "error_description": "unknown or used device code"}
            grant.polls += 1
            too_fast = grant.last_poll is not None and now - grant.last_poll < grant.interval - self.slow_down_tolerance
            grant.last_poll = now
            if now >= grant.expires_at and self.expire_codes:
                return 400, {"error": "expired_token"}
            if grant.state == "denied":
                return 400, {"error": "access_denied"}
            if grant.state == "pending" and grant.approve_at is not None and now >= grant.approve_at:
                grant.state = "approved"
            if grant.state == "pending":
                if too_fast:
                    grant.interval += 5
                    grant.slow_downs += 1
                    return 400, {"error": "slow_down"}
                return 400, {"error": "authorization_pending"}
            grant.state = "consumed"
            subject = grant.subject or self.subject
        return 200, self.issue_tokens(subject)

    def _refresh_grant(self, refresh_token: str) -> tuple[int, dict]:
        if not self.rotate_on_receipt:
            _hold_answer(self)
        with self.lock:
            record = self.state.refresh_tokens.get(refresh_token)
            if record is not None and record["used"] and self.revoke_family_on_reuse:
                self.revoked_families.add(record["family"])
            if record is None or record["used"] or record["family"] in self.revoked_families:
                return 400, {"error": "invalid_grant", "error_description": "refresh token is invalid or was used"}
            record["used"] = True
        answer = self.issue_tokens(record["sub"], record["scope"], record["family"])
        if self.rotate_on_receipt:  # rotated on receipt: the answer is what waits
            _hold_answer(self)
        return 200, answer


def approver(subject: object) -> str | None:
    """Who the page says approves: 1 to 64 printable characters without spaces at either end
    (the `sub` claim of the tokens); anything else: the server's default."""
    if not isinstance(subject, str):
        return None
    subject = subject.strip()
    return subject if 0 < len(subject) <= 64 and subject.isprintable() else None


def _hold_answer(server: AuthServer) -> None:
    """A refresh grant's answer waits for the test's gate (at most 60 s), then `refresh_delay`."""
    if server.refresh_gate is not None:
        server.refresh_gate.wait(60)
    if server.refresh_delay:
        time.sleep(server.refresh_delay)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Local authorization server for tests and the demo.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--interval", type=int, default=5)
    parser.add_argument("--auto-approve", type=float, default=None, metavar="SECONDS")
    parser.add_argument("--access-ttl", type=int, default=900)
    parser.add_argument("--device-ttl", type=int, default=900)
    args = parser.parse_args(argv)
    server = AuthServer(
        port=args.port,
        interval=args.interval,
        auto_approve=args.auto_approve,
        access_ttl=args.access_ttl,
        device_ttl=args.device_ttl,
    ).start()
    print(f"authorization server on {server.url}; approve codes at {server.verification_uri()}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
