"""config.toml and the credentials it points at: the managed provider, its slot, host and region."""

from __future__ import annotations

import os

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
from tui.core.slots.state import MISSING, REVOKED, VALID, signed_in_as


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
    path = paths.config_path()
    try:
        if read_config_raw() is None:
            return [Check("config.parse", OK, f"No {path} yet (signing in creates it).", "", {"path": str(path)})]
        config = read_config_readonly()
    except AuthError as exc:
        return [Check("config.parse", FAIL, exc.message + ".", exc.hint or f"Fix {path} by hand.", {"path": str(path)})]
    checks = [Check("config.parse", OK, f"{path} parses.", "", {"path": str(path)}), check_config_mode(config)]
    providers = config.get("providers") if isinstance(config.get("providers"), dict) else {}
    entry = providers.get(MANAGED_PROVIDER)
    if not isinstance(entry, dict):
        checks.append(
            Check(
                "config.managed",
                WARN,
                f'No [providers."{MANAGED_PROVIDER}"] entry.',
                "Sign in (`assistant-auth login`) to create it.",
                {},
            )
        )
        return checks
    try:
        slot = storage_name_of(provider_selection(MANAGED_PROVIDER, config))
    except AuthError as exc:
        checks.append(
            Check(
                "config.managed",
                FAIL,
                f"{MANAGED_PROVIDER}: {exc.message}.",
                exc.hint or "Sign in again to rewrite it.",
                {},
            )
        )
        return checks
    if paths.credentials_path(slot).exists():
        checks.append(
            Check("config.managed", OK, f"{MANAGED_PROVIDER} uses the slot {slot}, which exists.", "", {"slot": slot})
        )
    else:
        checks.append(
            Check(
                "config.managed",
                FAIL,
                f"{MANAGED_PROVIDER} uses the slot {slot}, which has no credential file.",
                "Sign in in its region, or `assistant-auth switch --region …` to a region you are signed in to.",
                {"slot": slot},
            )
        )
    base = str(entry.get("base_url", "")).rstrip("/")
    fields = ref_fields(entry.get("oauth"))
    inferred = inferred_hosts(config).get(MANAGED_PROVIDER)
    if inferred:
        checks.append(
            Check(
                "config.oauth_host",
                WARN,
                f"{MANAGED_PROVIDER} names no oauthHost; its key was made for {inferred} (an official-client rewrite drops it).",
                "Write the host back.",
                {"host": inferred},
                repair=_restore_host(MANAGED_PROVIDER, inferred),
            )
        )
    elif fields is not None and fields[1] is not None:
        key, host = fields
        if key is not None and derive_scoped_key(host, base) != key.strip() and key.strip() != "oauth/assistant-code":
            checks.append(
                Check(
                    "config.oauth_host",
                    FAIL,
                    f"{MANAGED_PROVIDER}: its key {key} was not made for oauthHost {host} and base_url {base}.",
                    "Sign in again in the right region: it rewrites the entry.",
                    {"host": host, "key": key},
                )
            )
        else:
            checks.append(
                Check(
                    "config.oauth_host",
                    OK,
                    f"{MANAGED_PROVIDER}: oauthHost {host} matches its key.",
                    "",
                    {"host": host},
                )
            )
    regions = {settings.base_url(r).rstrip("/"): r for r in ("cn", "global")}
    if base in regions:
        checks.append(
            Check(
                "config.base_url",
                OK,
                f"{MANAGED_PROVIDER}: base_url is the {regions[base]} API.",
                "",
                {"region": regions[base]},
            )
        )
    else:
        checks.append(
            Check(
                "config.base_url",
                WARN,
                f"{MANAGED_PROVIDER}: base_url {base or '(none)'} is neither region's API.",
                "Sign in again, or check ASSISTANT_BASE_URL_CN / _GLOBAL.",
                {"base_url": base},
            )
        )
    return checks


def _holds_secret(node: object) -> bool:
    """A non-empty value under a secret name (api_key, …) anywhere in the parsed config."""
    if isinstance(node, dict):
        return any((is_secret_name(k) and isinstance(v, str) and v) or _holds_secret(v) for k, v in node.items())
    if isinstance(node, list):
        return any(_holds_secret(v) for v in node)
    return False


def check_config_mode(config: dict) -> Check:
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
    problem = untrusted_because(info, path)
    wanted = mode & ~(0o077 if secret else 0o022)
    repair = None
    if found is not None and not found.is_link and info.st_uid == os.getuid():
        repair = Repair(f"chmod {wanted:04o} {path} (now {mode:04o})", lambda: fix_mode(found, wanted))
    if problem and info.st_uid != os.getuid():
        return Check(
            "config.mode",
            FAIL,
            f"{problem}: no refresh token is sent to a host it names.",
            f"`chown $USER {path}` (doctor does not change owners).",
            details,
        )
    if problem and not mode & 0o022:  # the directory is the trouble: files.config_dir repairs it
        return Check(
            "config.mode",
            FAIL,
            f"{problem}: no refresh token is sent to a host it names.",
            f"chmod 700 {os.path.dirname(path)}.",
            details,
        )
    if problem:
        return Check(
            "config.mode",
            FAIL,
            f"{problem}: no refresh token is sent to a host it names.",
            f"chmod go-w {path}.",
            details,
            repair=repair,
        )
    if mode & 0o044 and secret:
        return Check(
            "config.mode",
            FAIL,
            f"Others can read {path} (mode {mode:04o}), which holds an api_key.",
            f"chmod 600 {path}.",
            details,
            repair=repair,
        )
    if mode & 0o044:
        return Check(
            "config.mode",
            WARN,
            f"Others can read {path} (mode {mode:04o}).",
            f"chmod 600 {path}.",
            details,
            repair=Repair(f"chmod 0600 {path} (now {mode:04o})", lambda: fix_mode(found, 0o600)) if repair else None,
        )
    return Check("config.mode", OK, f"{path} is yours and private ({mode:04o}).", "", details)


def check_credentials(view: Overview) -> list[Check]:
    """Each slot: valid, expired but refreshable, no refresh token, revoked or unreadable; who."""
    managed = view.managed
    checks = []
    for status in view.slots:
        name = f"credentials.{status.name}"
        details = {"slot": status.name, "region": status.region, "identity": status.identity, "state": status.state}
        used = " (the managed provider's)" if status.name == managed else ""
        serious = FAIL if status.name == managed else WARN
        if status.state == VALID:
            checks.append(
                Check(
                    name,
                    OK,
                    f"{status.name}{used}: {signed_in_as(status)}, {expiry_text(status.expires_in())}.",
                    "",
                    details,
                )
            )
        elif status.usable:
            checks.append(
                Check(
                    name,
                    OK,
                    f"{status.name}{used}: {signed_in_as(status)}, expired; refreshes on next use.",
                    "",
                    details,
                )
            )
        elif status.refresh_rejected:
            checks.append(
                Check(
                    name,
                    serious,
                    f"{status.name}{used}: expired, and the server rejected its refresh token.",
                    "Sign in again (`assistant-auth login`).",
                    details,
                )
            )
        elif status.state == REVOKED:
            checks.append(
                Check(
                    name,
                    serious,
                    f"{status.name}{used}: signed out (revoked) by the official client.",
                    "Sign in again (`assistant-auth login`).",
                    details,
                )
            )
        elif status.has_expiry:
            checks.append(
                Check(name, serious, f"{status.name}{used}: expired and no refresh token.", "Sign in again.", details)
            )
        elif status.state != MISSING:
            checks.append(
                Check(
                    name,
                    serious,
                    f"{status.name}{used}: {status.label} ({status.detail[:120]}).",
                    "Move it aside (doctor --fix, or x in `assistant-auth inspect`) and sign in again.",
                    details,
                )
            )
    if not checks:
        checks.append(Check("credentials", WARN, "No credentials yet.", "Sign in: `assistant-auth login`.", {}))
    return checks


def expiry_text(left: float | None) -> str:
    if left is None:
        return "no expiry recorded"
    minutes = int(left // 60)
    return f"expires in {minutes} min" if minutes < 120 else f"expires in {minutes // 60} h"


async def probe_refresh(client=None) -> Check:
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
