"""Access tokens for API calls: the stored one, or a single-flight refresh (spec 4.3, 5)."""

from __future__ import annotations

from _collections_abc import Mapping

from .credentials import is_expired, load_credentials, try_load, write_merged
from .errors import AuthError
from .slot_rules import context_fields

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from .keys import OAuthRef, TokenContext


def _log():
    import logging

    return logging.getLogger("tui.core.tokens")


NO_REFRESH_TOKEN = "Kimi-style session has no refresh token; run the official login command"
SIGN_IN_AGAIN = "sign in again with `assistant-auth login`"


def read_valid_token(ref: OAuthRef | Mapping | None, base_url: str) -> str | None:
    """The stored access token if it is not expired, else None. Sync, no HTTP: the fast path.

    AuthError when the file is missing or unparsable (spec 7.2).
    """
    _key, storage_name, _host = context_fields(ref, base_url)
    creds = load_credentials(storage_name)
    if not is_expired(creds):
        return creds["access_token"]
    return None


async def get_access_token(ref: OAuthRef | Mapping | None, base_url: str, *, client=None) -> str:
    from .keys import resolve_context

    ctx = resolve_context(ref, base_url)
    creds = load_credentials(ctx.storage_name)
    if not is_expired(creds):
        return creds["access_token"]
    return await _refresh_under_lock(ctx, seen_token=creds["access_token"], force=False, client=client)


async def refresh_access_token(ref: OAuthRef | Mapping | None, base_url: str, *, client=None) -> str:
    """Refresh now, even if the stored token is still valid, with the same single flight.

    If another caller (task, thread or process) rotated the tokens while this one waited for the
    lock, that newer token is returned instead of refreshing a second time.
    """
    from .keys import resolve_context

    ctx = resolve_context(ref, base_url)
    creds = load_credentials(ctx.storage_name)
    return await _refresh_under_lock(ctx, seen_token=creds["access_token"], force=True, client=client)


async def _refresh_under_lock(ctx: TokenContext, *, seen_token: str, force: bool, client) -> str:
    from . import paths
    from .single_flight import single_flight

    async with single_flight(paths.lock_path(ctx.storage_name)):
        creds = load_credentials(ctx.storage_name)
        if not is_expired(creds) and (not force or creds["access_token"] != seen_token):
            return creds["access_token"]
        return await _refresh(ctx, creds, client)


async def _refresh(ctx: TokenContext, creds: dict, client) -> str:
    from .device_flow import parse_token_response
    from .http import client_scope, post_form
    from .redact import excerpt, register_token_fields
    from .settings import client_id

    register_token_fields(creds)
    refresh_token = creds.get("refresh_token")
    if not isinstance(refresh_token, str) or not refresh_token:
        raise AuthError(NO_REFRESH_TOKEN)
    form = {"grant_type": "refresh_token", "client_id": client_id(), "refresh_token": refresh_token}
    async with client_scope(client) as http:
        response = await post_form(http, ctx.token_endpoint, form, None, "Token refresh request failed")
    if not response.ok:
        raise AuthError(
            f"login expired and refresh failed (HTTP {response.status}): {excerpt(response.text)}; {SIGN_IN_AGAIN}"
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
