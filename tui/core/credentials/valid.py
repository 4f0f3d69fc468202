"""A valid access token from its slot, and nothing more: the path `token` takes when the stored
token lives long enough (tests/test_imports.py). The refresh (`tui.core.credentials.refresh`)
loads only when one is due; both read a slot's expiry through `slot.fresh`.
"""

from __future__ import annotations

from _collections_abc import Mapping  # not collections.abc: one module less on the token hot path

from tui.core.credentials.slot import EXPIRY_LEEWAY as LEEWAY, fresh, load_credentials, usable_token
from tui.core.errors import AuthError
from tui.core.spec.keys import context_fields, login_command, refuse_foreign_fallback
from tui.core.text.phrase import N_, Phrase

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from tui.core.spec.context import OAuthRef

SIGN_IN_AGAIN_HINT = N_("Sign in again with `{command}`.")


def required_ttl(min_ttl: float | None) -> float:
    """Seconds a handed-out token must still live: the spec's 30 s, or more when asked."""
    return LEEWAY if min_ttl is None or min_ttl < LEEWAY else float(min_ttl)


def printable(token: str, storage_name: str) -> str:
    """Safety: an access token is printable ASCII without spaces. Anything else (a newline that
    would split `$(assistant-auth token)`, terminal escape sequences) is refused, never shown."""
    if not usable_token(token):
        raise AuthError(
            "The stored access token is not printable ASCII (it holds spaces, control or escape "
            "characters): refusing to use it",
            hint=Phrase(SIGN_IN_AGAIN_HINT, command=login_command(storage_name)),
        )
    return token


def target(ref: OAuthRef | Mapping[str, Any] | None, base_url: str) -> tuple[str, str]:
    """(storage name, token endpoint) of spec 4.5, refusing a foreign fallback (safety)."""
    key, storage_name, host = context_fields(ref, base_url)
    refuse_foreign_fallback(key, host)
    return storage_name, host + "/api/oauth/token"


def read_valid_token(
    ref: OAuthRef | Mapping[str, Any] | None, base_url: str, min_ttl: float | None = None
) -> str | None:
    """The stored access token if it lives long enough, else None. Sync, no HTTP: the fast path.

    AuthError when the file is missing or unparsable (spec 7.2).
    """
    storage_name, _endpoint = target(ref, base_url)
    creds = load_credentials(storage_name)
    if fresh(creds, required_ttl(min_ttl)):
        return printable(creds["access_token"], storage_name)
    return None
