"""Keep secrets out of every message, log line and screen.

Two nets: every token and device code this process has handled is registered and replaced
wherever it appears, and anything shaped like a secret field or a JWT is masked even when it was
never registered (a server echoing a token it minted itself, say).
"""

from __future__ import annotations

import re
import threading

REDACTED = "[redacted]"

_lock = threading.Lock()
_secrets: set[str] = set()

_FIELD_RE = re.compile(
    r'("?(?:access_token|refresh_token|device_code|id_token)"?\s*[:=]\s*"?)([^"&\s,}]+)',
    re.IGNORECASE,
)
_JWT_RE = re.compile(r"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*")
_BEARER_RE = re.compile(r"(Bearer\s+)([A-Za-z0-9._~+/=-]+)", re.IGNORECASE)


def register_secret(value: object) -> None:
    """Remember a secret so that :func:`redact` hides it anywhere it shows up."""
    if isinstance(value, str) and len(value) >= 4:
        with _lock:
            _secrets.add(value)


def register_token_fields(data: object) -> None:
    if isinstance(data, dict):
        for field in ("access_token", "refresh_token", "device_code", "id_token"):
            register_secret(data.get(field))


def redact(text: str) -> str:
    with _lock:
        known = sorted(_secrets, key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, REDACTED)
    text = _FIELD_RE.sub(lambda m: m.group(1) + REDACTED, text)
    text = _JWT_RE.sub(REDACTED, text)
    text = _BEARER_RE.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def excerpt(body: str, limit: int = 200) -> str:
    """The first `limit` characters of a (redacted) response body (spec 7.2)."""
    return redact(body)[:limit]


def mask(value: object, keep: int = 4) -> str:
    """`abcd…wxyz` for display: at most `keep` characters at each end, never the whole secret."""
    if not isinstance(value, str) or not value:
        return "(none)"
    if len(value) <= keep * 3:
        return "•" * min(len(value), 8)
    return f"{value[:keep]}…{value[-keep:]}"
