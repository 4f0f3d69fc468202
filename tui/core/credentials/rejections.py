"""A refresh the server rejected, remembered until the sign-in changes.

When the server rejects a refresh (`invalid_grant`, HTTP 401/403), the slot's file still holds
the tokens it had, so by its fields alone it looks "expired, refreshes on next use". The next use
would fail the same way. `<config_dir>/rejected/<slot>.json` (0600, in a 0700 directory of our
own, written like `signin/`) records that the refresh token now in the file was rejected: its
SHA-256 (never the token), when, and the HTTP status. The record speaks only while the file still
holds that refresh token, so it clears itself when anyone signs in again (this tool, or the
official client, which never learns of it) or rotates the token. The shared credential file is
never written for this.
"""

from __future__ import annotations

import os
import time
from typing import Any

from tui.core.files import ownfiles
from tui.core.spec.digest import sha256_hex

DIRECTORY = "rejected"


def fingerprint(refresh_token: str) -> str:
    return sha256_hex(refresh_token.encode("utf-8", "surrogatepass"))


def _file(storage_name: str) -> str:
    return storage_name.replace("/", "_") + ".json"  # a slot name is a file name already


def remember(storage_name: str, refresh_token: str, status: int, now: float | None = None) -> None:
    """Record that `refresh_token` (the one just sent for `storage_name`) was rejected."""
    record = {
        "refresh_token_sha256": fingerprint(refresh_token),
        "rejected_at": now or time.time(),
        "http_status": status,
    }
    fd = ownfiles.created_dir(DIRECTORY)
    try:
        ownfiles.write_record(fd, _file(storage_name), record)
    finally:
        os.close(fd)


def rejected_at(storage_name: str, fields: dict[str, Any]) -> float | None:
    """When the refresh token in `fields` (the slot file's JSON) was rejected, or None: no record,
    or a record of another refresh token (a new sign-in or a rotation since)."""
    refresh = fields.get("refresh_token")
    if not isinstance(refresh, str) or not refresh:
        return None
    with ownfiles.existing_dir(DIRECTORY) as fd:
        try:
            record = None if fd is None else ownfiles.read_record(fd, _file(storage_name))
        except ownfiles.RecordProblem:  # a link or another user's file: not ours to believe
            record = None
    if record is None or record.get("refresh_token_sha256") != fingerprint(refresh):
        return None
    when = record.get("rejected_at")
    return float(when) if isinstance(when, (int, float)) and not isinstance(when, bool) else 0.0


def forget(storage_name: str) -> None:
    """Drop the slot's record (a new sign-in was saved, or the slot was removed)."""
    with ownfiles.existing_dir(DIRECTORY) as fd:
        if fd is not None:
            ownfiles.unlink(fd, _file(storage_name))
