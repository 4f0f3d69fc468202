"""The managed provider entry in config.toml (spec 2.6, 4.4), edited round-trip with tomlkit.

tomlkit is imported lazily: only a sign-in or a config edit pays for it.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

from tui.core.config.guard import config_edit
from tui.core.config.kept import Kept, api_key_of_managed, keep
from tui.core.config.read import (
    BOM,
    CONFIG_LABEL,
    config_error,
    parse_config,
    read_config_text,
)
from tui.core.errors import AuthError
from tui.core.files.atomic import atomic_write, ensure_private_dir
from tui.core.spec import paths
from tui.core.spec.keys import (  # MANAGED_PROVIDER: a name of the core API
    HOST_SPELLINGS,
    MANAGED_PROVIDER,
    account_of_slot,
    resolve_storage_name,
)
from tui.core.spec.region_endpoints import endpoints
from tui.core.spec.regions import Region, parse_region

PROVIDER_TYPE = "assistant"


def keep_style(text: str, previous: str) -> str:
    """`text` in the line endings and byte-order mark of `previous` (the file it replaces): a
    CRLF file stays CRLF, a BOM stays, whatever tomlkit wrote for new lines."""
    body = text.removeprefix(BOM)
    if "\r\n" in previous:
        body = body.replace("\r\n", "\n").replace("\n", "\r\n")
    return (BOM if previous.startswith(BOM) else "") + body


def write_config_text(text: str, path: pathlib.Path | None = None, previous: str | None = None) -> None:
    """Atomic write, keeping the existing file's mode (0600 for a new file: it may hold api
    keys), line endings and byte-order mark. `previous`: the text being replaced, when the
    caller has just read it (else it is read here)."""
    path = path or paths.config_path()
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        mode = 0o600
    if previous is None:
        try:
            previous = read_config_text(path)
        except AuthError:
            previous = ""
    try:
        ensure_private_dir(path.parent)
        atomic_write(path, keep_style(text, previous).encode("utf-8"), mode=mode)
    except OSError as exc:
        raise AuthError(f"Failed to write {CONFIG_LABEL} config: {exc.strerror or exc}") from None


def providers_table(doc: Any, create: bool = False) -> Any:
    import tomlkit  # lazy: heavy: tomlkit

    if "providers" not in doc:
        if not create:
            return None
        doc["providers"] = tomlkit.table(is_super_table=True)
    table = doc["providers"]
    if not isinstance(table, dict):
        raise config_error("`providers` is not a table")
    return table


def pins_host(oauth_key: str, region: Region) -> bool:
    """Whether the entry names its host: spec 2.6 writes it for global only; beyond the spec, a
    named account names it in both regions (README, "Accounts"): the current official client
    takes a slot outside the two official ones to a region by its install marker when no host is
    named, and a cn account must never be refreshed at the global host."""
    if region is not Region.CN:  # any region but the default one names its host
        return True
    try:
        named = account_of_slot(resolve_storage_name(oauth_key))
    except AuthError:
        return False
    return named is not None and not named.is_default


def oauth_block(oauth_key: str, region: Region) -> Any:
    import tomlkit  # lazy: heavy: tomlkit

    block = tomlkit.inline_table()
    block["storage"] = "file"
    block["key"] = oauth_key
    if pins_host(oauth_key, region):
        block["oauthHost"] = endpoints(region).oauth_host
    return block


def update_oauth_in_place(oauth: Any, oauth_key: str, region: Region) -> None:
    """Edit an existing `oauth` table keeping its shape (inline or sub-table) and host spelling.

    Spec 2.6: the host is written only for global (and, beyond it, for a named account: `pins_host`).
    Where it is written, whatever spellings are present get the region's host (both, when both are
    there; the spec's `oauthHost` when none is). For cn's own slot, every spelling is removed: a stale global host must not stay, and a cn host written into the
    file would pin it against a later ASSISTANT_OAUTH_HOST_CN.
    """
    oauth["storage"] = "file"
    oauth["key"] = oauth_key
    present = [spelling for spelling in HOST_SPELLINGS if spelling in oauth]
    if not pins_host(oauth_key, region):
        for spelling in present:
            del oauth[spelling]
        return
    for spelling in present or ["oauthHost"]:
        oauth[spelling] = endpoints(region).oauth_host


def _new_entry(oauth_key: str, region: Region) -> Any:
    import tomlkit  # lazy: heavy: tomlkit

    entry = tomlkit.table()
    entry["name"] = MANAGED_PROVIDER
    entry["type"] = PROVIDER_TYPE
    entry["base_url"] = endpoints(region).base_url
    entry["api_key"] = ""
    entry["enabled"] = True
    entry["active"] = False
    entry["managed"] = True
    entry["note"] = ""
    entry["icon"] = ""
    entry["oauth"] = oauth_block(oauth_key, region)
    for empty in ("env", "settings", "usage"):
        entry[empty] = tomlkit.inline_table()
    return entry


def _append_entry(text: str, entry: Any) -> str | None:
    """Append the new table at the end of the text, leaving every existing byte where it was.

    Returns None when the result would not be valid TOML (e.g. `providers` is an inline table).
    """
    import tomlkit  # lazy: heavy: tomlkit

    holder = tomlkit.document()
    providers = tomlkit.table(is_super_table=True)
    providers[MANAGED_PROVIDER] = entry
    holder["providers"] = providers
    rendered = tomlkit.dumps(holder)
    prefix = text
    if prefix.strip():
        prefix = prefix if prefix.endswith("\n") else prefix + "\n"
        prefix += "\n"
    else:
        prefix = ""
    candidate = prefix + rendered
    try:
        parsed = parse_config(candidate)
        if not isinstance(parsed.get("providers", {}).get(MANAGED_PROVIDER), dict):
            return None
    except (AuthError, AttributeError):
        return None
    return candidate


def apply_managed_provider(text: str, oauth_key: str, region: Region | str) -> str:
    """Pure: the config text with the managed entry created or updated (spec 2.6).

    A new entry is appended at the end of the file; an existing one is edited in place. Every
    other byte of the file stays as it was.
    """
    region = parse_region(region)
    doc = parse_config(text)
    providers = providers_table(doc, create=False)
    entry = providers.get(MANAGED_PROVIDER) if providers is not None else None
    if entry is not None and not isinstance(entry, dict):
        raise config_error(f'`providers."{MANAGED_PROVIDER}"` is not a table')
    if entry is None:
        appended = _append_entry(text, _new_entry(oauth_key, region))
        if appended is not None:
            return appended
        import tomlkit  # lazy: heavy: tomlkit

        providers = providers_table(doc, create=True)
        fresh = _new_entry(oauth_key, region)
        if isinstance(providers, tomlkit.items.InlineTable):  # `providers = { ... }`: stay inline
            inline = tomlkit.inline_table()
            inline.update(fresh.unwrap())
            fresh = inline
        providers[MANAGED_PROVIDER] = fresh
    else:
        entry["type"] = PROVIDER_TYPE
        entry["base_url"] = endpoints(region).base_url
        entry["api_key"] = ""
        oauth = entry.get("oauth")
        if isinstance(oauth, dict):
            update_oauth_in_place(oauth, oauth_key, region)
        else:
            entry["oauth"] = oauth_block(oauth_key, region)
        entry["managed"] = True
    import tomlkit  # lazy: heavy: tomlkit

    return tomlkit.dumps(doc)


EDIT_TRIES = 5  # read-modify-write rounds when another program keeps changing the file meanwhile


class NotAsDecided(Exception):
    """config.toml, read again under its lock, is no longer what the edit was decided on (another
    command switched meanwhile): nothing was written."""


def provision_managed_provider(
    oauth_key: str, region: Region | str, *, only_if: Callable[[str], bool] | None = None, keep_any: bool = False
) -> Kept | None:
    """Read-modify-write config.toml; comments, order and unrelated tables survive. One writer of
    ours at a time (`guard.config_edit`); a change by another program between our read and our
    write (the official client takes no lock) is seen by a second read and the edit made again
    on what it wrote, so its change is not lost. `only_if`: the decision's premise, checked on the
    text read under the lock (NotAsDecided, nothing written, when it no longer holds). Returns
    the copy of config.toml kept first when the write empties an `api_key` someone put in the
    managed entry (`tui.core.config.kept`), else None; no copy, no write (AuthError). `keep_any`:
    keep the copy before any change to an existing file (the relay changes a server's own file)."""
    from tomlkit.exceptions import TOMLKitError  # lazy: heavy: tomlkit

    with config_edit():
        for _round in range(EDIT_TRIES):
            previous = read_config_text()
            if only_if is not None and not only_if(previous):
                raise NotAsDecided
            try:
                text = apply_managed_provider(previous, oauth_key, region)
            except TOMLKitError as exc:  # a document tomlkit parsed but cannot edit (e.g. out-of-order tables)
                raise config_error(exc) from None
            if read_config_text() == previous:
                break
        copy = None
        changes = text != previous and previous.strip() != ""
        if api_key_of_managed(previous) or (keep_any and changes):  # someone's api_key: kept before it is emptied
            try:
                copy = keep(previous, paths.config_path())
            except OSError as exc:
                raise AuthError(
                    f"Failed to write {CONFIG_LABEL} config: its api_key could not be kept first "
                    f"({exc.strerror or exc}); nothing was changed"
                ) from None
        write_config_text(text, previous=previous)
        return copy


def list_providers(doc: Any) -> list[tuple[str, Any]]:
    table = providers_table(doc)
    if table is None:
        return []
    return [(str(name), value) for name, value in table.items() if isinstance(value, dict)]
