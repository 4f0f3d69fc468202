"""Access tokens for API calls: the stored one, or a single-flight refresh (spec 4.3, 5).

Beyond the spec's re-read rules, a token that the official client rotated meanwhile is adopted
(before a refresh, and after a rejected one), so the two tools never sign each other out.
"""

from __future__ import annotations

from _collections_abc import Mapping  # not collections.abc: one module less on the token hot path

from tui.core.credentials import is_expired, is_tombstone, load_credentials, try_load, write_merged
from tui.core.errors import AuthError
from tui.core.keys import context_fields, refuse_foreign_fallback

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from tui.core.context import OAuthRef, TokenContext


def _log():
    import logging

    return logging.getLogger("tui.core.tokens")


NO_REFRESH_TOKEN = "Kimi-style session has no refresh token; run the official login command"
SIGN_IN_AGAIN = "sign in again with `assistant-auth login`"
REVOKED_HINT = "The session was revoked (signed out): sign in again with `assistant-auth login`."
SERVER_TROUBLE = (
    "The authorization server had trouble, not your sign-in: the stored tokens are kept; retry in a moment."
)
REJECTED_STATUSES = (400, 401, 403)  # 400 only with `invalid_grant`
ADOPT_DELAY = 0.1  # seconds to let the other tool finish its write after our refresh was rejected


def printable(token: str) -> str:
    """Safety: an access token is printable ASCII without spaces. Anything else (a newline that
    would split `$(assistant-auth token)`, terminal escape sequences) is refused, never shown."""
    if not token or not all("!" <= ch <= "~" for ch in token):
        raise AuthError(
            "The stored access token is not printable ASCII (it holds spaces, control or escape "
            "characters): refusing to use it",
            hint=SIGN_IN_AGAIN[0].upper() + SIGN_IN_AGAIN[1:] + ".",
        )
    return token


def read_valid_token(ref: OAuthRef | Mapping | None, base_url: str) -> str | None:
    """The stored access token if it is not expired, else None. Sync, no HTTP: the fast path.

    AuthError when the file is missing or unparsable (spec 7.2).
    """
    key, storage_name, host = context_fields(ref, base_url)
    refuse_foreign_fallback(key, host)
    creds = load_credentials(storage_name)
    if not is_expired(creds):
        return printable(creds["access_token"])
    return None


def _context(ref: OAuthRef | Mapping | None, base_url: str) -> TokenContext:
    from tui.core.context import resolve_context

    ctx = resolve_context(ref, base_url)
    refuse_foreign_fallback(ctx.storage_key, ctx.oauth_host)
    return ctx


async def get_access_token(ref: OAuthRef | Mapping | None, base_url: str, *, client=None) -> str:
    ctx = _context(ref, base_url)
    creds = load_credentials(ctx.storage_name)
    if not is_expired(creds):
        return printable(creds["access_token"])
    return printable(await _refresh_under_lock(ctx, creds, force=False, client=client))


async def refresh_access_token(ref: OAuthRef | Mapping | None, base_url: str, *, client=None) -> str:
    """Refresh now, even if the stored token is still valid, with the same single flight.

    If another caller (task, thread, process or the official client) rotated the tokens while
    this one waited for the locks, that newer token is returned instead of refreshing again.
    """
    ctx = _context(ref, base_url)
    creds = load_credentials(ctx.storage_name)
    return printable(await _refresh_under_lock(ctx, creds, force=True, client=client))


def _refuse_revoked(creds: Mapping) -> None:
    if is_tombstone(creds):
        raise AuthError(NO_REFRESH_TOKEN, hint=REVOKED_HINT)


async def _refresh_under_lock(ctx: TokenContext, seen: dict, *, force: bool, client) -> str:
    from tui.core.locks import hold_slot

    _refuse_revoked(seen)
    async with hold_slot(ctx.storage_name):
        creds = load_credentials(ctx.storage_name)
        _refuse_revoked(creds)
        rotated = creds.get("refresh_token") != seen.get("refresh_token")
        changed = rotated or creds["access_token"] != seen["access_token"]
        if not is_expired(creds) and (not force or changed):
            return creds["access_token"]  # spec 4.3 step 5, or what another tool rotated meanwhile
        # Still expired (or a forced refresh with nothing new): refresh with the refresh token
        # in the file now, which is the adopted one when another tool rotated it.
        return await _refresh(ctx, creds, client)


def _rejected(response) -> bool:
    from tui.core.oauth import oauth_error_code

    if response.status not in REJECTED_STATUSES:
        return False
    return response.status != 400 or oauth_error_code(response.text) == "invalid_grant"


def _adoptable(latest: dict | None, used_refresh_token: str) -> bool:
    """The file now holds another tool's rotation: a different refresh token, a live access token."""
    if latest is None or is_expired(latest) or not latest.get("access_token"):
        return False
    refresh = latest.get("refresh_token")
    return isinstance(refresh, str) and bool(refresh) and refresh != used_refresh_token


async def _refresh(ctx: TokenContext, creds: dict, client) -> str:
    import asyncio

    from tui.core.http import client_scope, post_form
    from tui.core.oauth import parse_token_response
    from tui.core.redact import excerpt, register_token_fields
    from tui.core.settings import client_id

    register_token_fields(creds)
    refresh_token = creds.get("refresh_token")
    if not isinstance(refresh_token, str) or not refresh_token:
        raise AuthError(NO_REFRESH_TOKEN, hint=REVOKED_HINT if is_tombstone(creds) else "")
    form = {"grant_type": "refresh_token", "client_id": client_id(), "refresh_token": refresh_token}
    async with client_scope(client) as http:
        response = await post_form(http, ctx.token_endpoint, form, None, "Token refresh request failed")
    if not response.ok:
        if _rejected(response):
            # The other tool may have won a race we could not see (it ignores locks on some
            # systems): if the file now holds its rotation, use it; the user stays signed in.
            await asyncio.sleep(ADOPT_DELAY)
            latest = try_load(ctx.storage_name)
            if _adoptable(latest, refresh_token):
                _log().info("refresh of %s was rejected; adopted the rotation another client wrote", ctx.storage_name)
                return latest["access_token"]
        from tui.core.hints import sign_in_again

        raise AuthError(
            f"login expired and refresh failed (HTTP {response.status}): {excerpt(response.text)}; {SIGN_IN_AGAIN}",
            SERVER_TROUBLE if response.trouble else sign_in_again(ctx.storage_name),
            transient=response.trouble,
        )
    try:
        tokens = parse_token_response(response.strict_text())
    except ValueError as exc:
        raise AuthError(f"Failed to parse token refresh response: {excerpt(str(exc))}") from None
    latest = try_load(ctx.storage_name)
    if latest is not None and not is_expired(latest) and latest["access_token"] != creds["access_token"]:
        _log().info("another process refreshed %s meanwhile; using its token", ctx.storage_name)
        return latest["access_token"]
    try:
        write_merged(ctx.storage_name, tokens)
    except OSError as exc:
        _log().warning("could not write refreshed credentials for %s: %s", ctx.storage_name, exc.strerror or exc)
    return tokens["access_token"]
