"""Saving an approved sign-in (spec 4.4), and removing one (logout), under the slot's locks.

Saving is one order of steps for every caller:

1. the tokens go into the region's credential slot, merged (4.6), under the slot's locks (so no
   refresh, ours or the official client's, interleaves its write with ours);
2. config.toml gets the managed provider (2.6), after the locks are released: it is shared by
   every slot and never written under one slot's locks.

`save_signin` waits for the locks without blocking the event loop; `persist_device_signin` is the
same for synchronous callers. Tokens the person approved are never dropped: by default the wait
has no bound, says what it waits for, and ends only by cancellation.
"""

from __future__ import annotations

import pathlib
from collections.abc import Mapping
from typing import Any

from tui.core.config.kept import Kept
from tui.core.config.provider import provision_managed_provider
from tui.core.credentials import rejections
from tui.core.credentials.locks import hold_slot, hold_slot_sync
from tui.core.credentials.slot import write_merged
from tui.core.errors import AuthError, Problem
from tui.core.spec.keys import DEFAULT_ACCOUNT, account_key, resolve_storage_name
from tui.core.spec.paths import credentials_path
from tui.core.spec.regions import Region, parse_region
from tui.core.text.phrase import N_, Phrase

PURPOSE = Phrase(N_("saving the sign-in"))


def write_signin_tokens(
    token_response: Mapping[str, Any], region: Region, account: str | None = None
) -> tuple[str, str]:
    """Step 1 without the locks (the caller holds them): (oauth_key, storage_name)."""
    oauth_key = account_key(region, account or DEFAULT_ACCOUNT)
    storage_name = resolve_storage_name(oauth_key)
    try:
        write_merged(storage_name, token_response)
    except OSError as exc:
        raise AuthError(f"Failed to write credentials: {exc.strerror or exc}", kind=Problem.NOT_STORED) from None
    rejections.forget(storage_name)  # a new refresh token: an old rejection no longer speaks
    return oauth_key, storage_name


def slot_of(region: Region, account: str | None = None) -> str:
    """The credential slot a sign-in in `region` (to the named `account`) writes."""
    return resolve_storage_name(account_key(region, account or DEFAULT_ACCOUNT))


async def save_signin(
    token_response: Mapping[str, Any], region: Region, *, timeout: float | None = None, account: str | None = None
) -> str:
    """Spec 4.4 for async callers; returns the storage name. `timeout`: seconds to wait for the
    slot's locks (None: as long as it takes). `account`: a named account (README, "Accounts"):
    its own slot, and the managed provider points at it (the sign-in makes it the active one)."""
    storage_name, _copy = await save_signin_keeping(token_response, region, timeout=timeout, account=account)
    return storage_name


async def save_signin_keeping(
    token_response: Mapping[str, Any], region: Region, *, timeout: float | None = None, account: str | None = None
) -> tuple[str, Kept | None]:
    """`save_signin`, and the copy of config.toml kept when the managed provider's api_key was
    emptied (`tui.core.config.kept`): the sign-in says where it is."""
    async with hold_slot(slot_of(region, account), timeout=timeout, purpose=PURPOSE, write_error=True):
        oauth_key, storage_name = write_signin_tokens(token_response, region, account)
    return storage_name, provision_managed_provider(oauth_key, region)


def persist_device_signin(
    token_response: Mapping[str, Any],
    region: Region | str,
    *,
    timeout: float | None = None,
    account: str | None = None,
) -> str:
    """Spec 4.4 for synchronous callers (the core API's name, so a region's text is parsed here,
    at the door); returns the storage name. `account`: a named account, as `save_signin`."""
    region = parse_region(region)
    with hold_slot_sync(slot_of(region, account), timeout=timeout, purpose=PURPOSE, write_error=True):
        oauth_key, storage_name = write_signin_tokens(token_response, region, account)
    provision_managed_provider(oauth_key, region)
    return storage_name


def remove_signin(storage_name: str) -> pathlib.Path:
    """Sign out of a slot: remove its credential file under the slot's locks (never its lock
    files: deleting a flock file another process holds breaks mutual exclusion)."""
    path = credentials_path(storage_name)
    with hold_slot_sync(storage_name, purpose=Phrase(N_("signing out"))):
        path.unlink()
    rejections.forget(storage_name)
    return path
