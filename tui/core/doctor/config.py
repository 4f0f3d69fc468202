"""config.toml and the credentials it points at: the managed provider, its slot, host and region."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from tui.core import paths, settings
from tui.core.config.edit import edit_provider
from tui.core.config.provider import write_config_text
from tui.core.config.read import (
    parse_config_readonly,
    read_config_raw,
    read_config_readonly,
    read_config_text,
    untrusted_because,
)
from tui.core.credentials.refresh import refresh_access_token
from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.errors import AuthError
from tui.core.keys import MANAGED_PROVIDER, derive_scoped_key, ref_fields
from tui.core.overview import Overview
from tui.core.redact import is_secret_name
from tui.core.repairs import CHANGED, NotDone, Repair, fix_mode, seen
from tui.core.slots.choice import inferred_hosts, provider_selection, storage_name_of

if TYPE_CHECKING:
    import httpx

from tui.core.slots.state import MISSING, REVOKED, VALID, SlotStatus, signed_in_as


def _restore_host(name: str, host: str) -> Repair:
    def apply() -> str:
        previous = read_config_text()
        config = parse_config_readonly(previous)
        if inferred_hosts(config).get(name) != host:  # the reported fact, re-checked on the text written over
            raise NotDone(f'{paths.config_path()}: the oauth table of [providers."{name}"] {CHANGED}')
        write_config_text(edit_provider(previous, name, {"oauth_host": host}), previous=previous)
        return f'wrote oauthHost = "{host}" into [providers."{name}"].oauth'

    return Repair(
        f'add oauthHost = "{host}" to the oauth table of [providers."{name}"] in {paths.config_path()} '
        "(nothing else in the file changes)",
        apply,
    )


def check_config() -> list[Check]:
    """config.toml parses, is private, and its managed provider names a slot, host and region
    that agree: one finding each."""
    path = paths.config_path()
    try:
        if read_config_raw() is None:
            return [Check("config.parse", OK, f"No {path} yet (signing in creates it).", "", {"path": str(path)})]
        config = read_config_readonly()
    except AuthError as exc:
        return [Check("config.parse", FAIL, exc.message + ".", exc.hint or f"Fix {path} by hand.", {"path": str(path)})]
    checks = [Check("config.parse", OK, f"{path} parses.", "", {"path": str(path)}), check_config_mode(config)]
    providers = config.get("providers")
    entry = providers.get(MANAGED_PROVIDER) if isinstance(providers, dict) else None
    if not isinstance(entry, dict):
        hint = "Sign in (`assistant-auth login`) to create it."
        return [*checks, Check("config.managed", WARN, f'No [providers."{MANAGED_PROVIDER}"] entry.', hint, {})]
    managed = _managed_slot(config)
    checks.append(managed)
    if "slot" not in managed.details:  # the entry names no slot: nothing more to compare
        return checks
    host = _oauth_host(config, entry)
    return [*checks, *([host] if host else []), _base_url(entry)]


def _managed_slot(config: dict[str, Any]) -> Check:
    """The managed provider names a slot, and that slot has a credential file."""
    try:
        slot = storage_name_of(provider_selection(MANAGED_PROVIDER, config))
    except AuthError as exc:
        hint = exc.hint or "Sign in again to rewrite it."
        return Check("config.managed", FAIL, f"{MANAGED_PROVIDER}: {exc.message}.", hint, {})
    if paths.credentials_path(slot).exists():
        return Check(
            "config.managed", OK, f"{MANAGED_PROVIDER} uses the slot {slot}, which exists.", "", {"slot": slot}
        )
    finding = f"{MANAGED_PROVIDER} uses the slot {slot}, which has no credential file."
    hint = "Sign in in its region, or `assistant-auth switch --region …` to a region you are signed in to."
    return Check("config.managed", FAIL, finding, hint, {"slot": slot})


def _oauth_host(config: dict[str, Any], entry: dict[str, Any]) -> Check | None:
    """The entry's oauthHost is the one its key was made for (written back when a rewrite by the
    official client dropped it); None when the entry names neither."""
    base = str(entry.get("base_url", "")).rstrip("/")
    inferred = inferred_hosts(config).get(MANAGED_PROVIDER)
    if inferred:
        finding = (
            f"{MANAGED_PROVIDER} names no oauthHost; its key was made for {inferred} "
            "(an official-client rewrite drops it)."
        )
        repair = _restore_host(MANAGED_PROVIDER, inferred)
        return Check("config.oauth_host", WARN, finding, "Write the host back.", {"host": inferred}, repair=repair)
    fields = ref_fields(entry.get("oauth"))
    if fields is None or fields[1] is None:
        return None
    key, host = fields
    if (
        host is not None
        and key is not None
        and derive_scoped_key(host, base) != key.strip()
        and key.strip() != "oauth/assistant-code"
    ):
        finding = f"{MANAGED_PROVIDER}: its key {key} was not made for oauthHost {host} and base_url {base}."
        hint = "Sign in again in the right region: it rewrites the entry."
        return Check("config.oauth_host", FAIL, finding, hint, {"host": host, "key": key})
    return Check("config.oauth_host", OK, f"{MANAGED_PROVIDER}: oauthHost {host} matches its key.", "", {"host": host})


def _base_url(entry: dict[str, Any]) -> Check:
    """The entry's base_url is one region's API."""
    base = str(entry.get("base_url", "")).rstrip("/")
    regions = {settings.base_url(r).rstrip("/"): r for r in ("cn", "global")}
    if base in regions:
        finding = f"{MANAGED_PROVIDER}: base_url is the {regions[base]} API."
        return Check("config.base_url", OK, finding, "", {"region": regions[base]})
    finding = f"{MANAGED_PROVIDER}: base_url {base or '(none)'} is neither region's API."
    hint = "Sign in again, or check ASSISTANT_BASE_URL_CN / _GLOBAL."
    return Check("config.base_url", WARN, finding, hint, {"base_url": base})


def _holds_secret(node: object) -> bool:
    """A non-empty value under a secret name (api_key, …) anywhere in the parsed config."""
    if isinstance(node, dict):
        return any((is_secret_name(k) and isinstance(v, str) and v) or _holds_secret(v) for k, v in node.items())
    if isinstance(node, list):
        return any(_holds_secret(v) for v in node)
    return False


def check_config_mode(config: dict[str, Any]) -> Check:
    """config.toml chooses the host that receives refresh tokens: others must not write it (a
    failure: refresh tokens are refused for hosts it names), nor read it when it holds an api_key."""
    path = paths.config_file()
    found = seen(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        return Check("config.mode", FAIL, f"{path} cannot be examined ({exc.strerror or exc}).", "", {"path": path})
    mode = info.st_mode & 0o777
    details = {"path": path, "mode": f"{mode:04o}"}
    secret = _holds_secret(config)
    wanted = mode & ~(0o077 if secret else 0o022)
    ours = found if found is not None and not found.is_link and info.st_uid == os.getuid() else None

    def fixing(target: int) -> Repair | None:
        if ours is None:
            return None
        return Repair(f"chmod {target:04o} {path} (now {mode:04o})", lambda: fix_mode(ours, target))

    problem = untrusted_because(info, path)
    if problem:
        finding = f"{problem}: no refresh token is sent to a host it names."
        if info.st_uid != os.getuid():
            return Check(
                "config.mode", FAIL, finding, f"`chown $USER {path}` (doctor does not change owners).", details
            )
        if not mode & 0o022:  # the directory is the trouble: files.config_dir repairs it
            return Check("config.mode", FAIL, finding, f"chmod 700 {os.path.dirname(path)}.", details)
        return Check("config.mode", FAIL, finding, f"chmod go-w {path}.", details, repair=fixing(wanted))
    if mode & 0o044 and secret:
        finding = f"Others can read {path} (mode {mode:04o}), which holds an api_key."
        return Check("config.mode", FAIL, finding, f"chmod 600 {path}.", details, repair=fixing(wanted))
    if mode & 0o044:
        finding = f"Others can read {path} (mode {mode:04o})."
        return Check("config.mode", WARN, finding, f"chmod 600 {path}.", details, repair=fixing(0o600))
    return Check("config.mode", OK, f"{path} is yours and private ({mode:04o}).", "", details)


def check_credentials(view: Overview) -> list[Check]:
    """Each slot: valid, expired but refreshable, no refresh token, revoked or unreadable; who."""
    checks = [check for status in view.slots if (check := _slot_check(status, view.managed)) is not None]
    return checks or [Check("credentials", WARN, "No credentials yet.", "Sign in: `assistant-auth login`.", {})]


def _slot_check(status: SlotStatus, managed: str | None) -> Check | None:
    """One slot's finding (None for a slot with no file): trouble in the managed provider's slot
    is a failure, in another slot a warning."""
    name = f"credentials.{status.name}"
    details = {"slot": status.name, "region": status.region, "identity": status.identity, "state": status.state}
    label = status.name + (" (the managed provider's)" if status.name == managed else "")
    serious = FAIL if status.name == managed else WARN
    again = "Sign in again (`assistant-auth login`)."
    if status.state == VALID:
        return Check(name, OK, f"{label}: {signed_in_as(status)}, {expiry_text(status.expires_in())}.", "", details)
    if status.usable:
        return Check(name, OK, f"{label}: {signed_in_as(status)}, expired; refreshes on next use.", "", details)
    if status.refresh_rejected:
        return Check(name, serious, f"{label}: expired, and the server rejected its refresh token.", again, details)
    if status.state == REVOKED:
        return Check(name, serious, f"{label}: signed out (revoked) by the official client.", again, details)
    if status.has_expiry:
        return Check(name, serious, f"{label}: expired and no refresh token.", "Sign in again.", details)
    if status.state == MISSING:
        return None
    hint = "Move it aside (doctor --fix, or x in `assistant-auth inspect`) and sign in again."
    return Check(name, serious, f"{label}: {status.label} ({status.detail[:120]}).", hint, details)


def expiry_text(left: float | None) -> str:
    if left is None:
        return "no expiry recorded"
    minutes = int(left // 60)
    return f"expires in {minutes} min" if minutes < 120 else f"expires in {minutes // 60} h"


async def probe_refresh(client: httpx.AsyncClient | None = None) -> Check:
    """--probe: refresh the managed slot (spends one refresh token; the new one is stored)."""
    try:
        selection = provider_selection(MANAGED_PROVIDER)
        slot = storage_name_of(selection)
        await refresh_access_token(selection.ref, selection.base_url, client=client, refuse=selection.refusal)
    except AuthError as exc:
        return Check("probe.refresh", FAIL, f"Refreshing {MANAGED_PROVIDER} failed: {exc.message}", exc.hint, {})
    return Check(
        "probe.refresh",
        OK,
        f"Refreshed {slot} ({MANAGED_PROVIDER}): the server accepted the refresh token.",
        "",
        {"slot": slot},
    )
