"""Which credential slot a command means: a provider of config.toml, explicit flags, or the default.

Reads config.toml with the standard library's `tomllib` (read-only, fast); edits go through
tomlkit in `provider.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import paths
from .errors import AuthError
from .keys import OAuthRef
from .regions import Region, endpoints


@dataclass(frozen=True)
class Selection:
    ref: OAuthRef | Mapping | None
    base_url: str
    label: str  # for messages: "provider NAME", "the default slot", ...


def read_config_readonly() -> dict:
    import tomllib

    path = paths.config_path()
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise AuthError(f"Failed to read assistant config: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise AuthError(f"Failed to read assistant config: {exc}") from None


def provider_selection(name: str, config: dict | None = None) -> Selection:
    config = read_config_readonly() if config is None else config
    providers = config.get("providers")
    entry = providers.get(name) if isinstance(providers, dict) else None
    if not isinstance(entry, dict):
        raise AuthError(f"No provider named {name!r} in {paths.config_path()}")
    base = entry.get("base_url")
    oauth = entry.get("oauth")
    return Selection(oauth if isinstance(oauth, dict) else None, base if isinstance(base, str) else "", f"provider {name}")


def select(
    provider: str | None = None,
    base_url: str | None = None,
    key: str | None = None,
    oauth_host: str | None = None,
) -> Selection:
    if provider:
        return provider_selection(provider)
    if base_url is not None or key or oauth_host:
        ref = OAuthRef(key=key, oauth_host=oauth_host) if (key or oauth_host) else None
        return Selection(ref, base_url or endpoints(Region.CN).base_url, "the selected slot")
    from .provider import MANAGED_PROVIDER

    try:
        config = read_config_readonly()
    except AuthError:
        config = {}
    providers = config.get("providers")
    if isinstance(providers, dict) and isinstance(providers.get(MANAGED_PROVIDER), dict):
        return provider_selection(MANAGED_PROVIDER, config)
    return Selection(None, endpoints(Region.CN).base_url, "the default slot")


def providers_by_slot(config: dict | None = None) -> dict[str, list[str]]:
    """storage_name -> names of the providers (with an `oauth` block) that resolve to it."""
    from .keys import resolve_context

    try:
        config = read_config_readonly() if config is None else config
    except AuthError:
        return {}
    providers = config.get("providers")
    found: dict[str, list[str]] = {}
    if not isinstance(providers, dict):
        return found
    for name, entry in providers.items():
        if not isinstance(entry, dict) or not isinstance(entry.get("oauth"), dict):
            continue
        base = entry.get("base_url") if isinstance(entry.get("base_url"), str) else ""
        ctx = resolve_context(entry["oauth"], base)
        found.setdefault(ctx.storage_name, []).append(str(name))
    return found


def selection_for_slot(storage_name: str) -> Selection:
    """How to refresh a slot found on disk: a provider that uses it, else the region it belongs
    to, else its own key against the cn host."""
    from .keys import DEFAULT_STORAGE_NAME, derive_scoped_key, resolve_storage_name

    users = providers_by_slot()
    if users.get(storage_name):
        return provider_selection(users[storage_name][0])
    for region in (Region.CN, Region.GLOBAL):
        ep = endpoints(region)
        if resolve_storage_name(derive_scoped_key(ep.oauth_host, ep.base_url)) == storage_name:
            ref = None if region is Region.CN else OAuthRef(oauth_host=ep.oauth_host)
            return Selection(ref, ep.base_url, f"region {region.value}")
    if storage_name == DEFAULT_STORAGE_NAME:
        return Selection(None, endpoints(Region.CN).base_url, "the default slot")
    return Selection(OAuthRef(key=f"oauth/{storage_name}"), endpoints(Region.CN).base_url, f"slot {storage_name}")


def region_for_slot(storage_name: str) -> Region:
    from .keys import derive_scoped_key, resolve_storage_name

    ep = endpoints(Region.GLOBAL)
    if resolve_storage_name(derive_scoped_key(ep.oauth_host, ep.base_url)) == storage_name:
        return Region.GLOBAL
    return Region.CN
