"""Which credential slot a command means: a provider of config.toml, explicit flags, or the default.

Reads config.toml with the standard library's `tomllib` (read-only, fast); edits go through
tomlkit in `provider.py`.
"""

from __future__ import annotations

from . import paths, settings
from .errors import AuthError
from .slot_rules import MANAGED_PROVIDER


class Selection:
    """A slot to use: the OAuth reference (a mapping or None), the API base and a label."""

    __slots__ = ("ref", "base_url", "label")

    def __init__(self, ref: object, base_url: str, label: str) -> None:
        self.ref = ref
        self.base_url = base_url
        self.label = label  # for messages: "provider NAME", "the default slot", ...

    def __repr__(self) -> str:
        return f"Selection(ref={self.ref!r}, base_url={self.base_url!r}, label={self.label!r})"


def parse_config_readonly(text: str) -> dict:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise AuthError(f"Failed to read assistant config: {exc}") from None


def read_config_readonly() -> dict:
    try:
        with open(paths.config_file(), "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise AuthError(f"Failed to read assistant config: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AuthError(f"Failed to read assistant config: {exc}") from None
    return parse_config_readonly(text)


_HEADER = '[providers."' + MANAGED_PROVIDER + '"]'


def _basic_string(text: str) -> str | None:
    """The value of a one-line TOML basic string without escapes, else None."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1] and "\\" not in text:
        return text[1:-1]
    return None


def _strip_comment(line: str) -> str:
    # only called on lines whose strings hold no "#" (checked by the callers' simple-shape rules)
    return line.split("#", 1)[0].strip()


def scan_managed_provider(text: str) -> tuple[dict | None, str] | None:
    """A fast read of the managed provider's `oauth` block and `base_url`, for the token path.

    Handles only the plain shape this program writes (one `[providers."managed:assistant-code"]`
    header, one-line `key = "value"` pairs, `oauth` as a one-line inline table of plain strings).
    Returns None for anything else, and the caller parses the file with tomllib instead; tests
    check that wherever it answers, it answers exactly what tomllib does.
    """
    if '"""' in text or "'''" in text or "\\" in text or text.count(MANAGED_PROVIDER) > 2:
        return None
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == _HEADER]
    if len(starts) != 1:
        return None
    for i, line in enumerate(lines):  # the provider must not be defined any other way
        stripped = line.strip()
        if MANAGED_PROVIDER in stripped and i != starts[0] and not stripped.startswith("name"):
            return None
        if stripped.startswith("providers") or stripped.startswith("[providers]"):
            return None
    base_url: str | None = None
    oauth: dict | None = None
    seen: set[str] = set()
    for line in lines[starts[0] + 1:]:
        stripped = line.strip()
        if stripped.startswith("["):
            break
        if not stripped or stripped.startswith("#"):
            continue
        key, eq, value = stripped.partition("=")
        key = key.strip()
        if not eq or key in seen or "." in key or '"' in key or "'" in key:
            return None
        seen.add(key)
        if "#" in value.split('"')[-1]:
            value = value[: len(value) - len(value.split('"')[-1])] + _strip_comment(value.split('"')[-1])
        value = value.strip()
        if key == "base_url":
            base_url = _basic_string(value)
            if base_url is None:
                return None
        elif key == "oauth":
            if not (value.startswith("{") and value.endswith("}")) or value.count("{") != 1 or value.count("}") != 1:
                return None
            oauth = {}
            body = value[1:-1].strip()
            for pair in filter(None, (p.strip() for p in body.split(","))) if body else []:
                name, peq, raw = pair.partition("=")
                name = name.strip()
                parsed = _basic_string(raw)
                if not peq or parsed is None or not name.replace("_", "").isalnum() or name in oauth:
                    return None
                oauth[name] = parsed
            if body.endswith(","):
                return None
    if base_url is None:
        return None
    return oauth, base_url


def provider_selection(name: str, config: dict | None = None) -> Selection:
    config = read_config_readonly() if config is None else config
    providers = config.get("providers")
    entry = providers.get(name) if isinstance(providers, dict) else None
    if not isinstance(entry, dict):
        raise AuthError(f"No provider named {name!r} in {paths.config_file()}")
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
        ref = {"key": key, "oauthHost": oauth_host} if (key or oauth_host) else None
        return Selection(ref, base_url or settings.base_url("cn"), "the selected slot")
    try:
        with open(paths.config_file(), "rb") as handle:
            text = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    if MANAGED_PROVIDER not in text:
        return Selection(None, settings.base_url("cn"), "the default slot")
    fast = scan_managed_provider(text)
    if fast is not None:
        return Selection(fast[0], fast[1], f"provider {MANAGED_PROVIDER}")
    try:
        config = parse_config_readonly(text)  # the text read above: the file is read once
    except AuthError:
        config = {}
    providers = config.get("providers")
    if isinstance(providers, dict) and isinstance(providers.get(MANAGED_PROVIDER), dict):
        return provider_selection(MANAGED_PROVIDER, config)
    return Selection(None, settings.base_url("cn"), "the default slot")


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
    from .keys import DEFAULT_STORAGE_NAME, OAuthRef
    from .regions import Region, endpoints
    from .slot_rules import region_storage_name

    users = providers_by_slot()
    if users.get(storage_name):
        return provider_selection(users[storage_name][0])
    for region in (Region.CN, Region.GLOBAL):
        if region_storage_name(region) == storage_name:
            ep = endpoints(region)
            ref = None if region is Region.CN else OAuthRef(oauth_host=ep.oauth_host)
            return Selection(ref, ep.base_url, f"region {region.value}")
    if storage_name == DEFAULT_STORAGE_NAME:
        return Selection(None, endpoints(Region.CN).base_url, "the default slot")
    return Selection(OAuthRef(key=f"oauth/{storage_name}"), endpoints(Region.CN).base_url, f"slot {storage_name}")


def region_for_slot(storage_name: str):
    from .regions import Region
    from .slot_rules import region_storage_name

    return Region.GLOBAL if region_storage_name(Region.GLOBAL) == storage_name else Region.CN
