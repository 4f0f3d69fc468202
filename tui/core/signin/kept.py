"""Approved tokens that could not be stored: an approval consumes the device code, so when the
slot's file cannot be written after all (a disk that filled, a file put in its way after the
check made before the code), its tokens are kept in a private directory of this user's outside
the config directory (which may be what failed) until the next sign-in of the same slot saves
them, without a new code. Never a token in a message: only where they are kept."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator, Mapping
from typing import Any

from tui.core.files import ownfiles
from tui.core.spec import paths
from tui.core.spec.digest import sha256_hex

LIFETIME = 24 * 3600.0  # seconds a kept approval is offered (a refresh token older than that is likely spent)


def place() -> str:
    """`$XDG_RUNTIME_DIR/assistant-auth-approved` (in the session's private directory), else
    `<tmp>/assistant-auth-approved-<uid>`: a directory of this user's that only they can enter
    (never the agent's `assistant-auth` directory, whose entries the agent alone decides)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        return os.path.join(runtime, "assistant-auth-approved")
    return os.path.join(tempfile.gettempdir(), f"assistant-auth-approved-{os.getuid()}")


def _name(storage_name: str) -> str:
    """One record per config directory and slot: two homes (a demo's, another
    ASSISTANT_CODE_HOME) never take each other's tokens."""
    return f"approved-{sha256_hex(paths.config_dir_str().encode())[:16]}-{storage_name}.json"


def _open(create: bool) -> int | None:
    where = place()
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(where, 0o700)
    try:
        fd = ownfiles.open_trusted(where)  # a plain directory of ours, writable by nobody else
    except ownfiles.RecordProblem:
        return None
    if fd is not None and os.fstat(fd).st_mode & 0o077:  # tokens: not even readable by others
        os.close(fd)
        return None
    return fd


@contextlib.contextmanager
def _directory(create: bool) -> Iterator[int | None]:
    fd = _open(create)
    try:
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


def keep(tokens: Mapping[str, Any], storage_name: str, now: float | None = None) -> str | None:
    """Keep the approved `tokens` of `storage_name`; the file's path, or None when even that
    private place cannot take them."""
    record = {
        "home": paths.config_dir_str(),
        "storage_name": storage_name,
        "approved_at": time.time() if now is None else now,
        "tokens": dict(tokens),
    }
    with _directory(create=True) as fd:
        if fd is None:
            return None
        try:
            ownfiles.write_record(fd, _name(storage_name), record)
        except OSError:
            return None
    return os.path.join(place(), _name(storage_name))


def kept(storage_name: str, now: float | None = None) -> dict[str, Any] | None:
    """The token answer kept for `storage_name` (its `expires_in` counted from now), None when
    there is none, it is not this user's own and private, or it is older than a day."""
    with _directory(create=False) as fd:
        if fd is None:
            return None
        try:
            record = ownfiles.read_record(fd, _name(storage_name))
        except ownfiles.RecordProblem:
            return None
    if record is None or record.get("storage_name") != storage_name or record.get("home") != paths.config_dir_str():
        return None
    approved, tokens = record.get("approved_at"), record.get("tokens")
    current = time.time() if now is None else now
    if not isinstance(approved, (int, float)) or not isinstance(tokens, dict) or not 0 <= current - approved < LIFETIME:
        return None
    if not isinstance(tokens.get("access_token"), str) or not isinstance(tokens.get("refresh_token"), str):
        return None
    lifetime = tokens.get("expires_in")
    if isinstance(lifetime, int) and not isinstance(lifetime, bool):
        tokens["expires_in"] = max(int(lifetime - (current - approved)), 0)
    return tokens


def forget(storage_name: str) -> None:
    with _directory(create=False) as fd:
        if fd is not None:
            ownfiles.unlink(fd, _name(storage_name))
