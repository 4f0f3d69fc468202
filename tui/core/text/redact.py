"""Keep secrets out of every message, log line and screen.

Two nets: every token and device code this process has handled is registered and replaced
wherever it appears, and anything shaped like a secret field or a JWT is masked even when it was
never registered (a server echoing a token it minted itself, say).
"""

from __future__ import annotations

import json
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


def is_secret_name(name: object) -> bool:
    """The one masking rule for names: a field, key or form field whose value is a secret
    (`access_token`, `refresh_token`, `device_code`, `api_key`, `client_secret`, `password`, …)."""
    lowered = str(name).lower().replace("-", "_")
    if lowered in ("token_type", "user_code"):
        return False
    return any(word in lowered for word in ("token", "secret", "password", "api_key", "apikey", "device_code"))


def register_secret(value: object) -> None:
    """Remember a secret so that :func:`redact` hides it anywhere it shows up."""
    if isinstance(value, str) and len(value) >= 4:
        with _lock:
            _secrets.add(value)


def register_token_fields(data: object) -> None:
    if isinstance(data, dict):
        for field in ("access_token", "refresh_token", "device_code", "id_token"):
            register_secret(data.get(field))


def _spellings(secret: str) -> set[str]:
    """A secret as it may appear in JSON text: plain, escaped, with `/` escaped as `\\/`."""
    escaped = json.dumps(secret)[1:-1]
    ascii_escaped = json.dumps(secret, ensure_ascii=True)[1:-1]
    return {secret, escaped, ascii_escaped, escaped.replace("/", "\\/"), ascii_escaped.replace("/", "\\/")}


def redact(text: str) -> str:
    with _lock:
        known = sorted(_secrets, key=len, reverse=True)
    for secret in known:
        for spelling in _spellings(secret):
            if spelling in text:
                text = text.replace(spelling, REDACTED)
    text = _FIELD_RE.sub(lambda m: m.group(1) + REDACTED, text)
    text = _JWT_RE.sub(REDACTED, text)
    text = _BEARER_RE.sub(lambda m: m.group(1) + REDACTED, text)
    return _redact_parsed(text, known)


def _redact_parsed(text: str, known: list[str]) -> str:
    """The second look, on the parsed form: JSON whose keys or values are escaped (`access\\u005ftoken`,
    `rt\\/…`) hides secrets from the text patterns. If a secret is still there, the JSON is
    re-written with every secret-named or known secret value replaced."""
    if text.lstrip()[:1] not in ("{", "[") or len(text) > (1 << 20):
        return text
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text
    secrets = set(known)
    found = False

    def walk(node: object, key: object = None) -> object:
        nonlocal found
        if isinstance(node, dict):
            return {k: walk(v, k) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, key) for v in node]
        if (
            isinstance(node, str)
            and node != REDACTED
            and ((key is not None and is_secret_name(key)) or node in secrets or _JWT_RE.search(node))
        ):
            found = True
            return REDACTED
        return node

    cleaned = walk(data)
    return json.dumps(cleaned, ensure_ascii=True) if found else text


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
