"""Access tokens for API calls: the stored one, or a single-flight refresh (spec 4.3, 5).

Beyond the spec's re-read rules, a token that the official client rotated meanwhile is adopted
(before a refresh, and after a rejected one), so the two tools never sign each other out.

The refresh itself is written once, as `_refresh_steps`: a generator that decides everything and
yields only its I/O ("send this form", "pause"). Two drivers (`tui.core.credentials.drive`) run
it under the slot's locks: one
with an event loop (the library's `get_access_token`, the TUI) and one without
(`get_access_token_sync`, the command line, whose refresh path stays near the floor of a bare
script). Both enter the critical section of `tui.core.signals` before the request is sent: its
answer is stored before any signal or cancellation is honoured.

Off the `token` hot path: a valid token is read by `tui.core.credentials.valid`; this module
loads where a refresh is due.
"""

from __future__ import annotations

import os
from _collections_abc import Mapping  # not collections.abc: one module less on the token hot path

from tui.core.credentials.drive import Pause, Send, drive, drive_async
from tui.core.credentials.slot import (
    EXPIRY_LEEWAY as LEEWAY,
    fresh,
    is_tombstone,
    load_credentials,
    try_load,
    usable_token,
    write_merged,
)
from tui.core.credentials.valid import (  # the valid path, on its own: `token` loads no refresh machinery
    printable,
    read_valid_token as read_valid_token,  # the library's name, here as before
    required_ttl as required_ttl,
    target as _target,
)
from tui.core.errors import AuthError, Problem
from tui.core.spec.keys import login_command
from tui.core.text.phrase import N_, Phrase

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    import logging
    from collections.abc import Generator
    from typing import Any

    import httpx

    from tui.core.credentials.drive import Steps
    from tui.core.files.atomic import Reserved
    from tui.core.http import Response
    from tui.core.spec.context import OAuthRef


def _log() -> logging.Logger:
    import logging  # lazy: with -v only

    return logging.getLogger("tui.core.credentials.refresh")


NO_REFRESH_TOKEN = "Kimi-style session has no refresh token; run the official login command"  # noqa: S105 - a message
SIGN_IN_AGAIN = "sign in again with `{command}`"  # the spec's instruction, naming the slot's own sign-in
REVOKED_HINT = N_("The session was revoked (signed out): sign in again with `{command}`.")
SERVER_TROUBLE = Phrase(
    N_("The authorization server had trouble, not your sign-in: the stored tokens are kept; retry in a moment.")
)
RELAYED_HINT = Phrase(
    N_(
        "This file holds an access token only, as `assistant-auth relay` writes it on a server: get tokens "
        "through the token agent (`assistant-auth ssh` sets ASSISTANT_AUTH_SOCK), or sign in on this machine."
    )
)
REJECTED_STATUSES = (400, 401, 403)  # 400 only with `invalid_grant`
ADOPT_DELAY = 0.1  # seconds to let the other tool finish its write after our refresh was rejected


class LifetimeTooShort(AuthError):
    """The server's tokens live less than the caller asked for (`min_ttl`): no refresh helps."""

    def __init__(self, lifetime: int, asked: float) -> None:
        super().__init__(
            f"the server issues tokens for {lifetime} s; --min-ttl {asked:g} cannot be met", kind=Problem.UNMET
        )
        self.lifetime = lifetime


def revoked_hint(storage_name: str) -> str:
    """The next step for a revoked session: the sign-in of this slot (region and account), never
    a plain `login` that would sign in another region and move the managed provider there."""
    return Phrase(REVOKED_HINT, command=login_command(storage_name))


async def get_access_token(
    ref: OAuthRef | Mapping[str, Any] | None,
    base_url: str,
    *,
    client: httpx.AsyncClient | None = None,
    min_ttl: float | None = None,
    refuse: AuthError | None = None,
) -> str:
    """Spec 4.3: the stored token, or a refresh under the single-flight locks. `min_ttl`: seconds
    the token must still live (None: the spec's 30 s; less than 30 counts as 30). `refuse`: raised
    instead of sending a refresh token (a `Selection.refusal`: the host came from a config.toml
    others can write)."""
    storage_name, endpoint = _target(ref, base_url)
    ttl = required_ttl(min_ttl)
    creds = load_credentials(storage_name)
    if fresh(creds, ttl):
        return printable(creds["access_token"], storage_name)
    return printable(
        await _refresh_async(storage_name, endpoint, creds, False, ttl, min_ttl, client, refuse), storage_name
    )


async def refresh_access_token(
    ref: OAuthRef | Mapping[str, Any] | None,
    base_url: str,
    *,
    client: httpx.AsyncClient | None = None,
    refuse: AuthError | None = None,
) -> str:
    """Refresh now, even if the stored token is still valid, with the same single flight.

    If another caller (task, thread, process or the official client) rotated the tokens while
    this one waited for the locks, that newer token is returned instead of refreshing again.
    """
    storage_name, endpoint = _target(ref, base_url)
    creds = load_credentials(storage_name)
    return printable(
        await _refresh_async(storage_name, endpoint, creds, True, LEEWAY, None, client, refuse), storage_name
    )


def get_access_token_sync(
    ref: OAuthRef | Mapping[str, Any] | None,
    base_url: str,
    *,
    min_ttl: float | None = None,
    force: bool = False,
    refuse: AuthError | None = None,
) -> str:
    """`get_access_token` (or, with `force`, `refresh_access_token`) without an event loop: the
    same locks, re-reads, adopt rules and critical section, one synchronous request."""
    storage_name, endpoint = _target(ref, base_url)
    ttl = required_ttl(min_ttl)
    creds = load_credentials(storage_name)
    if not force and fresh(creds, ttl):
        return printable(creds["access_token"], storage_name)
    _refuse_before_waiting(creds, storage_name, ttl, min_ttl, refuse)
    from tui.core.credentials.locks import hold_slot_sync  # lazy: off token's path

    with hold_slot_sync(storage_name):
        return printable(drive(_refresh_steps(storage_name, endpoint, creds, force, ttl, min_ttl)), storage_name)


async def _refresh_async(
    storage_name: str,
    endpoint: str,
    seen: dict[str, Any],
    force: bool,
    ttl: float,
    min_ttl: float | None,
    client: httpx.AsyncClient | None,
    refuse: AuthError | None,
) -> str:
    from tui.core.credentials.locks import hold_slot  # lazy: off token's path

    _refuse_before_waiting(seen, storage_name, ttl, min_ttl, refuse)
    async with hold_slot(storage_name):
        return await drive_async(_refresh_steps(storage_name, endpoint, seen, force, ttl, min_ttl), client)


def _refuse_revoked(creds: Mapping[str, Any], storage_name: str) -> None:
    if is_tombstone(creds):
        raise AuthError(NO_REFRESH_TOKEN, hint=revoked_hint(storage_name))


def _refuse_before_waiting(
    creds: Mapping[str, Any], storage_name: str, ttl: float, min_ttl: float | None, refuse: AuthError | None = None
) -> None:
    """What needs no lock to know: a refresh host nobody may trust, a revoked session, and a
    lifetime that no refresh can meet (the stored `expires_in` already says the server's tokens
    live less than asked)."""
    if refuse is not None:
        raise refuse
    _refuse_revoked(creds, storage_name)
    lifetime = creds.get("expires_in")
    if min_ttl is not None and isinstance(lifetime, int) and not isinstance(lifetime, bool) and 0 < lifetime < ttl:
        raise LifetimeTooShort(lifetime, ttl)


# -- the refresh, written once ------------------------------------------------------------------


def _no_refresh_hint(creds: Mapping[str, Any]) -> str:
    """What to do with a usable access token and an empty refresh token: the relay's file."""
    return RELAYED_HINT if creds.get("refresh_token") == "" and usable_token(creds.get("access_token")) else ""


def _access_token(creds: Mapping[str, Any]) -> str:
    """The access token of credentials `fresh()` (or a token answer) already vouched for."""
    token = creds["access_token"]
    if not isinstance(token, str):  # pragma: no cover - fresh() and parse_token_response require it
        raise AuthError("no access_token string")
    return token


def _refresh_steps(
    storage_name: str, endpoint: str, seen: dict[str, Any], force: bool, ttl: float, min_ttl: float | None
) -> Steps:
    """Spec 4.3 under the slot's locks, as a generator: yields `Send` once and
    `Pause` when waiting, receives the response of the `Send`, returns the access token."""
    creds = load_credentials(storage_name)
    _refuse_revoked(creds, storage_name)
    rotated = creds.get("refresh_token") != seen.get("refresh_token")
    changed = rotated or creds["access_token"] != seen["access_token"]
    if fresh(creds, ttl) and (not force or changed):
        return _access_token(creds)  # spec 4.3 step 5, or what another tool rotated meanwhile
    _refuse_before_waiting(creds, storage_name, ttl, min_ttl)
    # Still short-lived (or a forced refresh with nothing new): refresh with the refresh token in
    # the file now, which is the adopted one when another tool rotated it.
    from tui.core.spec.settings import client_id  # lazy: off token's path
    from tui.core.text.redact import register_token_fields  # lazy: off token's path

    register_token_fields(creds)
    refresh_token = creds.get("refresh_token")
    if not isinstance(refresh_token, str) or not refresh_token:
        raise AuthError(
            NO_REFRESH_TOKEN, hint=revoked_hint(storage_name) if is_tombstone(creds) else _no_refresh_hint(creds)
        )
    form = {"grant_type": "refresh_token", "client_id": client_id(), "refresh_token": refresh_token}
    reserved = _room_for_the_answer(
        storage_name, creds
    )  # before sending: a refresh is spent only when its answer can be kept
    try:
        return (yield from _send_and_keep(storage_name, endpoint, form, creds, refresh_token, ttl, min_ttl, reserved))
    finally:
        reserved.discard()  # unused (an adopted rotation, an error): nothing is left behind


def _room_for_the_answer(storage_name: str, creds: dict[str, Any]) -> Reserved:
    from tui.core.credentials.slot import dump, reserve_room  # lazy: off token's path
    from tui.core.spec.limits import room_for_answer  # lazy: off token's path
    from tui.core.spec.paths import credentials_path  # lazy: off token's path

    try:
        return reserve_room(storage_name, creds)
    except OSError as exc:
        path = credentials_path(storage_name)
        needed = _size(room_for_answer(len(dump(creds))))  # `df` shows free space: say how much is needed
        raise AuthError(
            f"could not write {path} ({exc.strerror or exc}): a refresh first needs {needed} beside it for "
            f"the server's answer, and {_free(path.parent)} is free there; nothing was sent, your sign-in is kept",
            f"Free at least {needed} on that file system (or lift the file-size limit), then try again.",
            transient=True,
        ) from None


def _size(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB" if size >= 1 << 20 else f"{-(-size // 1024)} KiB"


def _free(directory: object) -> str:
    """The room left for this user on the file system of `directory`, as `df` counts it."""
    try:
        info = os.statvfs(str(directory))
    except OSError:
        return "an unknown amount"
    return _size(info.f_bavail * info.f_frsize)


WRITE_TRIES = 5  # attempts to store an answer the server already gave, within the critical section


def _send_and_keep(
    storage_name: str,
    endpoint: str,
    form: dict[str, str],
    creds: dict[str, Any],
    refresh_token: str,
    ttl: float,
    min_ttl: float | None,
    reserved: Reserved,
) -> Steps:
    """Send the refresh and keep its answer (spec 4.3, 4.6), as steps of `_refresh_steps`."""
    from tui.core.credentials.oauth import oauth_error_code, parse_token_response  # lazy: off token's path
    from tui.core.text.redact import excerpt  # lazy: off token's path

    response = yield Send(endpoint, form)
    if response is None:  # pragma: no cover - every driver answers a Send
        raise RuntimeError("no response to the refresh request")
    if not response.ok:
        rejected = response.status in REJECTED_STATUSES and (
            response.status != 400 or oauth_error_code(response.text) == "invalid_grant"
        )
        if rejected:
            # The other tool may have won a race we could not see (it ignores locks on some
            # systems): if the file now holds its rotation, use it; the user stays signed in.
            yield Pause(ADOPT_DELAY)
            latest = try_load(storage_name)
            if latest is not None and _adoptable(latest, refresh_token, ttl):
                _log().info("refresh of %s was rejected; adopted the rotation another client wrote", storage_name)
                return _access_token(latest)
            _remember_rejection(storage_name, refresh_token, response.status)
        failed = f"login expired and refresh failed (HTTP {response.status}): {excerpt(response.text)}"
        if response.trouble:  # the server's trouble, not the sign-in's: never "sign in again" (README)
            raise AuthError(failed, SERVER_TROUBLE, transient=True)
        again = SIGN_IN_AGAIN.format(command=login_command(storage_name))
        raise AuthError(f"{failed}; {again}", kind=Problem.REJECTED)
    try:
        tokens = parse_token_response(response.strict_text())
    except ValueError as exc:
        raise AuthError(f"Failed to parse token refresh response: {excerpt(str(exc))}") from None
    latest = try_load(storage_name)
    if latest is not None and fresh(latest, ttl) and latest["access_token"] != creds["access_token"]:
        _log().info("another process refreshed %s meanwhile; using its token", storage_name)
        return _access_token(latest)
    yield from _store_answer(storage_name, tokens, reserved)
    lifetime = tokens.get("expires_in")
    if min_ttl is not None and isinstance(lifetime, int) and lifetime < ttl:
        raise LifetimeTooShort(lifetime, ttl)  # stored first: the rotated token is never lost
    return _access_token(tokens)


def _store_answer(
    storage_name: str, tokens: dict[str, Any], reserved: Reserved
) -> Generator[Send | Pause, Response | None, None]:
    """The answer into the room proved before sending; should that still fail, a few more tries
    (the disk may be freed meanwhile), then never success: what was lost, and what to do."""
    from tui.core.spec.paths import credentials_path  # lazy: off token's path

    problem = OSError("not written")
    for attempt in range(WRITE_TRIES):
        try:
            write_merged(storage_name, tokens, reserved=reserved if attempt == 0 else None)
            return
        except OSError as exc:
            problem = exc
            _log().warning("could not write refreshed credentials for %s: %s", storage_name, exc.strerror or exc)
            if attempt + 1 < WRITE_TRIES:  # a pause between tries, none after the last
                yield Pause(0.2 * (attempt + 1))
    raise AuthError(
        f"the server rotated the tokens of {storage_name} but {credentials_path(storage_name)} could not be written "
        f"({problem.strerror or problem}): the new tokens are lost and the stored refresh token is spent",
        f"Free some disk space, then sign in again: {login_command(storage_name)}",
    )


def _remember_rejection(storage_name: str, refresh_token: str, status: int) -> None:
    """Every face says "sign in again" for this slot until its refresh token changes."""
    from tui.core.credentials import rejections  # lazy: off token's path
    from tui.core.files import ownfiles  # lazy: off token's path

    try:
        rejections.remember(storage_name, refresh_token, status)
    except (OSError, ownfiles.RecordProblem) as exc:
        _log().warning("could not remember the rejected refresh of %s: %s", storage_name, exc)


def _adoptable(latest: dict[str, Any], used_refresh_token: str, ttl: float) -> bool:
    """The file now holds another tool's rotation: a different refresh token, a live access token."""
    if not fresh(latest, ttl):  # fresh: a usable access token that lives long enough
        return False
    refresh = latest.get("refresh_token")
    return isinstance(refresh, str) and bool(refresh) and refresh != used_refresh_token
