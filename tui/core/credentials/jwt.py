"""Read a JWT's claims for display. No verification: this is for people, not for trust."""

from __future__ import annotations

import base64

from tui.core.files import jsonutil

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


def decode_claims(token: object) -> dict[str, Any] | None:
    """The payload of a `header.payload.signature` token as a dict, or None if it is not a JWT."""
    if not isinstance(token, str) or token.count(".") != 2:
        return None
    payload = token.split(".")[1]
    try:
        raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        claims = jsonutil.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    return claims if isinstance(claims, dict) else None


IDENTITY_CLAIMS = ("name", "preferred_username", "email", "sub")
IDENTITY_WIDTH = 80


def identity_of(access_token: object) -> str | None:
    """A human identity from a JWT access token's claims (`name`, `preferred_username`, `email`,
    else `sub`), or None (opaque token, no such claim). As the claim says it: faithful, so faces
    show it through `tui.core.text.untrusted.one_line`."""
    claims = decode_claims(access_token) or {}
    for claim in IDENTITY_CLAIMS:
        value = claims.get(claim)
        if isinstance(value, str) and value.strip():
            return value.strip()[:IDENTITY_WIDTH]
    return None


def person_of(access_token: object) -> tuple[str, str] | None:
    """Who a token is for, as the server names them: (issuer, subject) from its claims (`iss`
    may be absent: ""), None without a `sub`. Never a display name: two people may share one."""
    claims = decode_claims(access_token)
    subject = claims.get("sub") if claims is not None else None
    if not isinstance(subject, str) or not subject:
        return None
    issuer = claims.get("iss") if claims is not None else None
    return (issuer if isinstance(issuer, str) else "", subject)
