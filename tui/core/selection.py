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

    __slots__ = ("ref", "base_url", "label", "inferred_host")

    def __init__(self, ref: object, base_url: str, label: str, inferred_host: str | None = None) -> None:
        self.ref = ref
        self.base_url = base_url
        self.label = label  # for messages: "provider NAME", "the default slot", ...
        self.inferred_host = inferred_host  # set when config.toml lacks the host its key was made for

    def __repr__(self) -> str:
        return f"Selection(ref={self.ref!r}, base_url={self.base_url!r}, label={self.label!r})"


def explain_for(exc: AuthError, selection: Selection | None) -> AuthError:
    """Add a line naming the provider to an invalid-key refusal (the spec's text stays first)."""
    if selection is not None and not exc.hint and exc.message.startswith("Invalid OAuth token key: "):
        exc.hint = (
            f"{selection.label}: its oauth key is not a valid slot name and its oauthHost is not the "
            "default slot's host, so no token is sent there. Fix the key with `assistant-auth config`."
        )
    return exc


def parse_config_readonly(text: str) -> dict:
    import tomllib

    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except (tomllib.TOMLDecodeError, RecursionError, ValueError) as exc:
        raise AuthError(f"Failed to read assistant config: {exc}") from None


def read_config_bytes() -> bytes:
    """config.toml's bytes (b"" when missing), through the file policy: regular, at most 1 MiB."""
    from .files import describe, read_regular

    try:
        return read_regular(paths.config_file())
    except FileNotFoundError:
        return b""
    except OSError as exc:
        raise AuthError(f"Failed to read assistant config: {describe(exc)}") from None


def decode_config(raw: bytes) -> str:
    """UTF-8 text of config.toml; a leading byte-order mark is accepted (and kept by writers)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AuthError(f"Failed to read assistant config: {exc}") from None


def read_config_readonly() -> dict:
    return parse_config_readonly(decode_config(read_config_bytes()))


_HEADER = '[providers."' + MANAGED_PROVIDER + '"]'
_SUB_PREFIX = '[providers."' + MANAGED_PROVIDER + '".'
_OAUTH_HEADER = _SUB_PREFIX + "oauth]"
_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _bare_key(text: str) -> str | None:
    key = text.strip()
    return key if key and all(ch in _BARE for ch in key) else None


def _end_of_value(rest: str) -> bool:
    rest = rest.strip()
    return not rest or rest.startswith("#")


def _basic_string(text: str) -> tuple[str, str] | None:
    """A TOML basic string at the start of `text` (no escapes: the caller excludes backslashes):
    (value, what follows it), else None."""
    text = text.lstrip()
    if not text.startswith('"'):
        return None
    close = text.find('"', 1)
    return None if close < 0 else (text[1:close], text[close + 1:])


def _string_value(text: str) -> str | None:
    found = _basic_string(text)
    return found[0] if found is not None and _end_of_value(found[1]) else None


def _inline_table(text: str) -> dict | None:
    """`{ a = "x", b = "y" }` of plain strings, then only a comment; else None."""
    rest = text.strip()
    if not rest.startswith("{"):
        return None
    rest = rest[1:].lstrip()
    table: dict = {}
    if rest.startswith("}"):
        return table if _end_of_value(rest[1:]) else None
    while True:
        name, eq, rest = rest.partition("=")
        key = _bare_key(name)
        found = _basic_string(rest) if eq and key is not None and key not in table else None
        if found is None:
            return None
        table[key] = found[0]
        rest = found[1].lstrip()
        if rest.startswith("}"):
            return table if _end_of_value(rest[1:]) else None
        if not rest.startswith(","):
            return None
        rest = rest[1:].lstrip()
        if rest.startswith("}"):
            return None  # a trailing comma: invalid in TOML 1.0


def scan_managed_provider(text: str) -> tuple[dict | None, str] | None:
    """A fast read of the managed provider's `oauth` table and `base_url`, for the token path.

    Handles the plain shapes this program and the official client write: one
    `[providers."managed:assistant-code"]` header with one-line `key = "value"` pairs, `oauth` as
    a one-line inline table of plain strings or as the sub-table `[providers."…".oauth]`, other
    sub-tables, and lines elsewhere whose value is the provider's name (`provider = "…"`).
    Returns None for anything else, and the caller parses the file with tomllib instead; tests
    check that wherever it answers, it answers exactly what tomllib does.
    """
    if '"""' in text or "'''" in text or "\\" in text or text.startswith("\ufeff"):
        return None
    section = "top"  # top | main | oauth | other
    seen_main = seen_oauth_table = False
    base_url: str | None = None
    oauth: dict | None = None
    keys: dict[str, set] = {"main": set(), "oauth": set()}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("["):
            if stripped.startswith("[["):
                if MANAGED_PROVIDER in stripped or "providers" in stripped:
                    return None
                section = "other"
            elif stripped == _HEADER:
                if seen_main:
                    return None
                seen_main, section = True, "main"
            elif stripped == _OAUTH_HEADER:
                if seen_oauth_table or oauth is not None:
                    return None
                seen_oauth_table, section, oauth = True, "oauth", {}
            elif stripped.startswith(_SUB_PREFIX + "oauth") or (
                MANAGED_PROVIDER in stripped and not stripped.startswith(_SUB_PREFIX)
            ):
                return None
            else:
                section = "other"
            continue
        name, eq, value = stripped.partition("=")
        key = _bare_key(name)
        if not eq or key is None:
            return None  # dotted or quoted keys, continuation lines: leave them to tomllib
        if section in keys:
            if key in keys[section]:
                return None
            keys[section].add(key)
        if section == "main":
            if key == "base_url":
                base_url = _string_value(value)
                if base_url is None:
                    return None
            elif key == "oauth":
                if seen_oauth_table:
                    return None
                oauth = _inline_table(value)
                if oauth is None:
                    return None
        elif section == "oauth":
            parsed = _string_value(value)
            if parsed is None:
                return None
            oauth[key] = parsed
        elif MANAGED_PROVIDER in stripped:
            if section == "top" or _string_value(value) != MANAGED_PROVIDER:
                return None  # only a plain reference by name, never a definition
        elif section == "top" and key == "providers":
            return None
    if base_url is None or not seen_main:
        return None
    return oauth, base_url


def provider_selection(name: str, config: dict | None = None) -> Selection:
    config = read_config_readonly() if config is None else config
    providers = config.get("providers")
    entry = providers.get(name) if isinstance(providers, dict) else None
    if not isinstance(entry, dict):
        raise AuthError(f"No provider named {name!r} in {paths.config_file()}")
    base = entry.get("base_url")
    return provider_entry_selection(entry.get("oauth"), base if isinstance(base, str) else "", f"provider {name}")


def provider_entry_selection(oauth: object, base_url: str, label: str) -> Selection:
    """A provider's `oauth` table (either host spelling) and base as a Selection, with the host
    inferred from a scoped key when the table names none (README: a deliberate deviation)."""
    from .slot_rules import provider_ref

    ref, inferred = provider_ref(oauth if isinstance(oauth, dict) else None, base_url)
    return Selection(ref, base_url, label, inferred)


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
        text = decode_config(read_config_bytes())
    except AuthError:
        text = ""
    if MANAGED_PROVIDER not in text:
        return Selection(None, settings.base_url("cn"), "the default slot")
    fast = scan_managed_provider(text)
    if fast is not None:
        return provider_entry_selection(fast[0], fast[1], f"provider {MANAGED_PROVIDER}")
    try:
        config = parse_config_readonly(text)  # the text read above: the file is read once
    except AuthError:
        config = {}
    providers = config.get("providers")
    if isinstance(providers, dict) and isinstance(providers.get(MANAGED_PROVIDER), dict):
        return provider_selection(MANAGED_PROVIDER, config)
    return Selection(None, settings.base_url("cn"), "the default slot")


def config_or_empty() -> dict:
    """config.toml parsed read-only, or {} when it is missing or unreadable (listings only)."""
    try:
        return read_config_readonly()
    except AuthError:
        return {}


def oauth_providers(config: dict | None = None) -> list[tuple[str, Selection]]:
    """(name, Selection) of every provider of config.toml with an `oauth` table, in file order."""
    config = config_or_empty() if config is None else config
    providers = config.get("providers")
    found = []
    for name, entry in (providers.items() if isinstance(providers, dict) else ()):
        if isinstance(entry, dict) and isinstance(entry.get("oauth"), dict):
            base = entry.get("base_url") if isinstance(entry.get("base_url"), str) else ""
            found.append((str(name), provider_entry_selection(entry["oauth"], base, f"provider {name}")))
    return found


def providers_by_slot(config: dict | None = None) -> dict[str, list[str]]:
    """storage_name -> names of the providers (with an `oauth` block) that resolve to it."""
    from .keys import resolve_context

    found: dict[str, list[str]] = {}
    for name, chosen in oauth_providers(config):
        found.setdefault(resolve_context(chosen.ref, chosen.base_url).storage_name, []).append(name)
    return found


def inferred_hosts(config: dict | None = None) -> dict[str, str]:
    """provider name -> the host its scoped key was made for, for providers whose `oauth` table
    names no host (status and the inspector report them so the host can be written back)."""
    return {name: chosen.inferred_host for name, chosen in oauth_providers(config) if chosen.inferred_host}


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
