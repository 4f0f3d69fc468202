"""The credential file (spec 2.1, 4.6, 7.2): parse, expiry, merge, atomic 0600 writes."""

from __future__ import annotations

import json
import os
import time
from _collections_abc import Mapping  # not collections.abc: one module less on the token hot path

from tui.core.errors import AuthError, Problem
from tui.core.files import jsonutil
from tui.core.spec import paths
from tui.core.spec.keys import login_command
from tui.core.text.phrase import N_, Phrase

TYPE_CHECKING = False  # not `from typing import`: typing costs milliseconds on the token path
if TYPE_CHECKING:  # pragma: no cover
    import logging
    import pathlib
    from typing import Any

    from tui.core.files.atomic import Reserved


def _log() -> logging.Logger:
    import logging  # lazy: with -v only

    return logging.getLogger("tui.core.credentials.slot")


EXPIRY_LEEWAY = 30  # seconds (spec 8)
LOGIN_HINT = "sign in first with `{command}`"
LOGIN_STEP = N_("Sign in first: {command}")  # LOGIN_HINT as a line of its own, said in another language


def expires_at_of(data: object) -> float | None:
    """The one reader of `expires_at`, in a slot's file or an agent's answer: the number it holds
    (not a bool, not NaN), else None (absent, or of another type: no expiry known)."""
    expires_at = data.get("expires_at") if isinstance(data, Mapping) else None
    if isinstance(expires_at, bool) or not isinstance(expires_at, (int, float)) or expires_at != expires_at:
        return None
    return float(expires_at)


def lives_at_least(creds: Mapping[str, Any], seconds: float, now: float | None = None) -> bool:
    """The access token has more than `seconds` left: `expires_at` absent (no expiry, spec 2.1),
    or now < expires_at - seconds."""
    expires_at = expires_at_of(creds)
    if expires_at is None:
        return True
    current = time.time() if now is None else now
    return current < expires_at - seconds


def usable_token(value: object) -> bool:
    """The one definition of an access token that can be used, for every face and both grants:
    a non-empty string of printable ASCII without spaces. Anything else (a newline that would
    split `$(assistant-auth token)`, terminal escape sequences) is never handed out or stored."""
    return isinstance(value, str) and bool(value) and all("!" <= ch <= "~" for ch in value)


def fresh(creds: Mapping[str, Any], seconds: float, now: float | None = None) -> bool:
    """The stored access token can be used for more than `seconds`; anything less (expiring, or
    unusable) needs a refresh."""
    return usable_token(creds.get("access_token")) and lives_at_least(creds, seconds, now)


def is_expired(creds: Mapping[str, Any], now: float | None = None) -> bool:
    """Expired when `expires_at` is present and now >= expires_at - 30; absent means not expired."""
    return not lives_at_least(creds, EXPIRY_LEEWAY, now)


def is_tombstone(creds: object) -> bool:
    """The official client's mark of a session whose refresh was rejected: `access_token` "",
    `refresh_token` "" (or absent) and `expires_at` 0. Never refreshed; a sign-in replaces it."""
    if not isinstance(creds, Mapping):
        return False
    return creds.get("access_token") == "" and creds.get("refresh_token") in ("", None) and expires_at_of(creds) == 0


def merge_token_response(current_text: str, response: Mapping[str, Any], now: float | None = None) -> object:
    """Spec 4.6: merge a token response into the current file content.

    Unparsable content starts from an empty object; content that parses to a non-object is
    returned unchanged. Every other field of the file is kept.
    """
    try:
        current = jsonutil.loads(current_text) if current_text.strip() else {}
    except ValueError:
        current = {}
    if not isinstance(current, dict):
        return current
    merged = dict(current)
    merged["access_token"] = response.get("access_token")
    for field in ("refresh_token", "scope", "token_type"):
        # safety over the letter of 4.6: an empty refresh_token is treated as absent, so an
        # answer with "" never wipes the stored one (the only way back would be a new sign-in)
        if response.get(field) is not None and not (field == "refresh_token" and response[field] == ""):
            merged[field] = response[field]
    expires_in = response.get("expires_in")
    if jsonutil.is_int(expires_in):
        current_time = time.time() if now is None else now
        merged["expires_in"] = expires_in
        merged["expires_at"] = int(current_time) + expires_in
    kept = merged.get("expires_at")
    if isinstance(kept, float) and kept == kept and abs(kept) < 1e15:
        merged["expires_at"] = int(kept)  # always an integer on disk, as the official client writes it
    return merged


EMPTY = "the file is empty"  # a crash while writing, a full disk: say so, not a parser's position


def field_problem(data: Mapping[str, Any]) -> str | None:
    """Why a JSON object cannot be used as credentials (the types of spec 2.1), else None: the
    one rule that `token`, `refresh`, `status`, Home, the inspector, doctor and the repairs read,
    so what a view calls usable is what a use can use."""
    if not isinstance(data.get("access_token"), str):
        return "field `access_token` missing" if "access_token" not in data else "field `access_token` is not a string"
    for field in ("refresh_token", "scope", "token_type"):
        if data.get(field) is not None and not isinstance(data[field], str):
            return f"field `{field}` is not a string"
    for field in ("expires_at", "expires_in"):
        value = data.get(field)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return f"field `{field}` is not a number"
    return None


def parse_credentials(text: str) -> dict[str, Any]:
    """Parse credential JSON; AuthError `Failed to parse OAuth credentials: <detail>` otherwise."""
    if not text.strip():
        raise AuthError(f"Failed to parse OAuth credentials: {EMPTY}", kind=Problem.DAMAGED)
    try:
        data = jsonutil.loads(text)
    except ValueError as exc:
        raise AuthError(f"Failed to parse OAuth credentials: {exc}", kind=Problem.DAMAGED) from None
    if not isinstance(data, dict):
        raise AuthError(
            f"Failed to parse OAuth credentials: expected a JSON object, found {type(data).__name__}",
            kind=Problem.DAMAGED,
        )
    problem = field_problem(data)
    if problem is not None:
        raise AuthError(f"Failed to parse OAuth credentials: {problem}", kind=Problem.DAMAGED)
    return data


def read_text(path: str | pathlib.Path) -> str:
    from tui.core.files.regular import read_regular  # lazy: off token's path

    raw = read_regular(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"invalid UTF-8: {exc}") from None


def _not_found(storage_name: str, path: object, detail: str | None) -> AuthError:
    """Spec 9's missing-file message, with the sign-in that writes this slot (a named account's
    names it: a plain `login` would sign in another slot)."""
    command = login_command(storage_name)
    return AuthError(
        f"credentials not found at {path}: {detail}; " + LOGIN_HINT.format(command=command),
        next_step=Phrase(LOGIN_STEP, command=command),
        kind=Problem.NOT_SIGNED_IN,
    )


def load_credentials(storage_name: str) -> dict[str, Any]:
    path = paths.credentials_file(storage_name)
    try:
        text = read_text(path)
    except FileNotFoundError as exc:
        if os.path.islink(path):  # a dotfiles link whose target moved: a sign-in could not write through it
            raise _dangling(path) from None
        raise _not_found(storage_name, path, exc.strerror) from None
    except PermissionError as exc:
        raise _not_yours(path, exc) from None
    except OSError as exc:
        from tui.core.files.regular import NotRegularFile, TooLarge  # lazy: off token's path

        if isinstance(exc, (NotRegularFile, TooLarge)):  # a directory, a FIFO, over 1 MiB
            raise _damaged(f"Failed to parse OAuth credentials: {exc}", path, storage_name) from None
        raise _not_found(storage_name, path, exc.strerror) from None
    except ValueError as exc:
        raise _damaged(f"Failed to parse OAuth credentials: {exc}", path, storage_name) from None
    try:
        return parse_credentials(text)
    except AuthError as exc:
        raise _damaged(exc.message, path, storage_name) from None


def _dangling(path: str) -> AuthError:
    from tui.core.files.access import DANGLING_FIX  # lazy: off token's path

    target = os.readlink(path)
    return AuthError(
        f"credentials not found at {path}: a symbolic link to {target}, which does not exist",
        Phrase(DANGLING_FIX, target=target, path=path),
        kind=Problem.NOT_SIGNED_IN,
    )


def _not_yours(path: str, exc: OSError) -> AuthError:
    """A file or directory of another owner (a first sign-in under sudo): not "sign in first"
    (that sign-in would fail too), but whose it is and the one command that gives it back."""
    from tui.core.files.access import give_back_step  # lazy: off token's path
    from tui.core.files.owner import not_mine, whose  # lazy: off token's path

    found = not_mine(path)
    owned = "" if found is None else f"; {found[0]} belongs to {whose(found[1])}"
    return AuthError(
        f"Failed to read credentials at {path}: {exc.strerror or exc}{owned}",
        give_back_step() if found is not None else "",
        kind=Problem.NO_ACCESS,
    )


def _damaged(message: str, path: str | pathlib.Path, storage_name: str) -> AuthError:
    from tui.core.spec.hints import damaged_file  # lazy: off token's path

    return AuthError(message, damaged_file(path, login_command(storage_name)), kind=Problem.DAMAGED)


def try_load(storage_name: str) -> dict[str, Any] | None:
    """The parsed credentials, or None when missing or unreadable (for the re-read rules)."""
    try:
        return load_credentials(storage_name)
    except AuthError:
        return None


def dump(data: object) -> bytes:
    """The file's bytes: UTF-8 kept as is; a lone surrogate (valid in JSON as `\\ud800`, not in
    UTF-8) written back as that same escape, never a UnicodeEncodeError after a refresh was sent."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


def write_credentials(storage_name: str, data: object, reserved: Reserved | None = None) -> pathlib.Path:
    """Write pretty-printed JSON atomically with mode 0600 (the directory 0700 when created),
    into room `reserve_room` proved beforehand when there is some."""
    from tui.core.files.atomic import atomic_write, ensure_private_dir  # lazy: off token's path

    path = paths.credentials_path(storage_name)
    if reserved is not None:
        reserved.commit(dump(data))
        return path
    ensure_private_dir(path.parent)
    atomic_write(path, dump(data), mode=0o600)
    return path


def reserve_room(storage_name: str, current: object = None) -> Reserved:
    """Prove, before a refresh is sent, that its answer can be stored: a temporary file beside
    the slot, as large as the slot can become with any answer the program reads
    (`limits.room_for_answer`; `current` is the file's parsed content, read here when not given),
    flushed. OSError (a full disk, a file-size limit) when it cannot be: then nothing is sent."""
    from tui.core.files.atomic import Reserved, ensure_private_dir  # lazy: off token's path
    from tui.core.spec.limits import room_for_answer  # lazy: off token's path

    path = paths.credentials_path(storage_name)
    ensure_private_dir(path.parent)
    if current is None:
        current = _stored_now(path)
    return Reserved(path, room_for_answer(len(dump(current))))


def _stored_now(path: pathlib.Path) -> object:
    """The slot's content as it would be written again: its parsed JSON, or its text as one
    string when it does not parse (it would be moved aside; its size still counts)."""
    try:
        text = read_text(path)
    except (OSError, ValueError):
        return {}
    try:
        return jsonutil.loads(text)
    except ValueError:
        return text


def corrupt_name(path: pathlib.Path, now: float | None = None) -> pathlib.Path:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(time.time() if now is None else now))
    candidate = path.with_name(f"{path.name}.corrupt-{stamp}")
    counter = 1
    while candidate.exists():
        counter += 1
        candidate = path.with_name(f"{path.name}.corrupt-{stamp}-{counter}")
    return candidate


def move_aside(path: pathlib.Path) -> pathlib.Path:
    """Rename a corrupt file to `<name>.corrupt-<timestamp>`; nothing is ever deleted."""
    target = corrupt_name(path)
    os.replace(path, target)
    _log().warning("moved unreadable credential file aside to %s", target)
    return target


def write_merged(
    storage_name: str, response: Mapping[str, Any], now: float | None = None, reserved: Reserved | None = None
) -> pathlib.Path:
    """Read the current file, merge the token response (4.6) and write it back.

    Beyond the specification: a current file that does not parse to an object would be
    overwritten (or kept, losing the new tokens). It is moved aside to `.corrupt-<timestamp>`
    first, so nothing is lost and the new tokens are stored.
    """
    from tui.core.files.atomic import ensure_private_dir  # lazy: off token's path

    path = paths.credentials_path(storage_name)
    ensure_private_dir(path.parent)
    try:
        current = read_text(path)
    except FileNotFoundError:
        current = ""
    except ValueError:
        move_aside(path)
        current = ""
    merged = merge_token_response(current, response, now)
    if current.strip() and (not isinstance(merged, dict) or not _parses_to_object(current)):
        move_aside(path)
        merged = merge_token_response("", response, now)
    return write_credentials(storage_name, merged, reserved)


def _parses_to_object(text: str) -> bool:
    try:
        return isinstance(jsonutil.loads(text), dict)
    except ValueError:
        return False
