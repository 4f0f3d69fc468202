"""What the token endpoint answers (spec 2.2, 7.1), parsed the same way for every grant.

Shared by the device grant (`device_flow`) and the refresh grant (`tokens`), so neither borrows
from the other. On the `token` refresh path: plain `json` work, nothing else.
"""

from __future__ import annotations

from tui.core.credentials.slot import usable_token
from tui.core.files import jsonutil
from tui.core.text.redact import register_token_fields

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


def parse_token_response(text: str) -> dict[str, Any]:
    """Strict parse of the 2.2 body; ValueError with a readable detail otherwise. Every secret in
    it is registered for redaction before anything can be shown."""
    data = jsonutil.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, found {type(data).__name__}")
    register_token_fields(data)
    if not isinstance(data.get("access_token"), str):
        raise ValueError(
            "missing field `access_token`" if "access_token" not in data else "field `access_token` is not a string"
        )
    if not data["access_token"]:
        raise ValueError("field `access_token` is empty")
    if not usable_token(data["access_token"]):  # stored, it would refuse every later use
        raise ValueError("field `access_token` is not printable ASCII (spaces, control or escape characters)")
    for field in ("refresh_token", "scope", "token_type"):
        if data.get(field) is not None and not isinstance(data[field], str):
            raise ValueError(f"field `{field}` is not a string")
    if data.get("expires_in") is not None and not jsonutil.is_int(data["expires_in"]):
        raise ValueError("field `expires_in` is not an integer")
    return data


def oauth_error_code(text: str) -> str | None:
    """The string `error` field of a JSON object body, or None."""
    try:
        data = jsonutil.loads(text)
    except ValueError:
        return None
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, str) else None
