"""Keys and storage names (spec 4.5): the rules that pick a credential slot, as pure functions on
plain values. The lowest floor of the slot concept: `config/` and `slots/` both build on it.

No dataclasses, no pathlib: `assistant-auth token` runs these on every call. `context.py` wraps
them in the records of the core API (OAuthRef, TokenContext).
"""

from __future__ import annotations

from _collections_abc import Mapping  # not collections.abc: one module less on the token hot path

from tui.core.errors import AuthError, Problem
from tui.core.spec import settings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from tui.core.spec.regions import Region

MANAGED_PROVIDER = "managed:assistant-code"
DEFAULT_KEY = "oauth/assistant-code"
DEFAULT_STORAGE_NAME = "assistant-code"
SCOPED_PREFIX = "oauth/assistant-code-env-"
_OAUTH_PREFIX = "oauth/"

# Beyond the specification: a storage name becomes a file name, so it is held to a conservative
# alphabet (ASCII letters, digits, "-", "_", ".", not starting with "." or "-") and 128 characters.
# The spec's own rule (no "/", no leading ".") is a subset of what this rejects.
# (checked by hand, not with `re`: the token path never imports it)
_NAME_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NAME_REST = _NAME_FIRST | frozenset(".-")


def _normalize(value: str) -> str:
    return value.strip().rstrip("/")


def derive_scoped_key(oauth_host: str, base_url: str) -> str:
    host, base = _normalize(oauth_host), _normalize(base_url)
    if host == _normalize(settings.oauth_host("cn")) and base == _normalize(settings.base_url("cn")):
        return DEFAULT_KEY
    from tui.core.spec.digest import sha256_hex  # lazy: the default slot's path (most `token` calls) needs no digest

    text = '{"oauthHost":"' + host + '","baseUrl":"' + base + '"}'
    return SCOPED_PREFIX + sha256_hex(text.encode("utf-8"))[:16]


def region_key(region: object) -> str:
    """Spec 4.4 step 1: the OAuth key a sign-in in `region` ("cn"/"global" or a Region) uses."""
    value = settings.region_word(region)
    return derive_scoped_key(settings.oauth_host(value), settings.base_url(value))


def region_storage_name(region: object) -> str:
    """The credential slot a sign-in in `region` writes."""
    return resolve_storage_name(region_key(region))


def region_of_slot(storage_name: str) -> Region | None:
    """The region whose sign-in writes `storage_name` (with the current settings; a named
    account's slot: the region in its name), else None."""
    from tui.core.spec.regions import (  # lazy: off token's path
        Region,  # here: `keys` is on the token hot path, which needs no Region
    )

    found = next((r for r in Region if region_storage_name(r) == storage_name), None)
    if found is None and (account := account_of_slot(storage_name)) is not None:
        return Region(account.region)
    return found


# Named accounts (beyond the specification, README "Accounts"): a named account is a credential
# slot of its own, `assistant-code-account-<region>-<name>`, whose key `oauth/<that>` the
# official client resolves the same way (spec 4.5). The region's own slot is its `default`.
DEFAULT_ACCOUNT = "default"
ACCOUNT_PREFIX = "assistant-code-account-"
ACCOUNT_NAME_MAX = 32
_ACCOUNT_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_ACCOUNT_REST = _ACCOUNT_FIRST | frozenset("-_")


def valid_account_name(name: object) -> bool:
    """Short, printable and safe as a file name on every system (no case to fold): lowercase
    ASCII letters, digits, `-` and `_`, starting with a letter or digit, at most 32."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= ACCOUNT_NAME_MAX
        and name[0] in _ACCOUNT_FIRST
        and all(ch in _ACCOUNT_REST for ch in name)
    )


def account_slot(region: object, name: str) -> str:
    """The storage name of account `name` in `region` ("cn"/"global" or a Region); the name is
    valid (the callers parse it at their door)."""
    value = settings.region_word(region)
    if name == DEFAULT_ACCOUNT:
        return region_storage_name(value)
    if not valid_account_name(name):
        raise AuthError(f"Invalid account name: {name!r}")
    return ACCOUNT_PREFIX + value + "-" + name


def account_key(region: object, name: str) -> str:
    """The OAuth key the managed provider names for account `name` in `region`."""
    if name == DEFAULT_ACCOUNT:
        return region_key(region)
    return _OAUTH_PREFIX + account_slot(region, name)


def made_for(key: str, oauth_host: str, base_url: str) -> bool:
    """`key` is one a sign-in to `oauth_host` at `base_url` writes: the spec's derived key (or the
    legacy default), or a named account's key of the region whose host and API those are (this
    program made it; one naming another region's host is not)."""
    key = key.strip()
    if key == derive_scoped_key(oauth_host, base_url) or key == DEFAULT_KEY:
        return True
    named = account_of_slot(key[len(_OAUTH_PREFIX) :]) if key.startswith(_OAUTH_PREFIX) else None
    if named is None or named.is_default:
        return False
    region = named.region
    return _normalize(oauth_host) == _normalize(settings.oauth_host(region)) and _normalize(base_url) == _normalize(
        settings.base_url(region)
    )


def login_command(storage_name: str) -> str:
    """The sign-in that writes `storage_name` again: a named account's with its name and region,
    the global region's with its region, anything else the plain one."""
    named = account_of_slot(storage_name)
    return "assistant-auth login" if named is None else named.login_command


def named_account_label(storage_name: str) -> str | None:
    """`work (cn)` for a named account's slot (not a region's own), else None: how a slot is
    named where a region's name would not tell two accounts of it apart."""
    named = account_of_slot(storage_name)
    return None if named is None or named.is_default else named.label


class AccountRef(tuple[str, str]):  # (region word, name): a tuple, so it unpacks and compares as one
    """An account as a value: its region's word and its name (`default`: the region's own slot),
    with what every face says of it. A plain tuple subclass: on `token`'s path."""

    __slots__ = ()

    def __new__(cls, region: str, name: str) -> AccountRef:
        return tuple.__new__(cls, (region, name))

    def __getnewargs__(self) -> tuple[str, str]:
        return (self[0], self[1])

    @property
    def region(self) -> str:
        return self[0]

    @property
    def name(self) -> str:
        return self[1]

    @property
    def is_default(self) -> bool:
        """The region's own slot, not a named account."""
        return self.name == DEFAULT_ACCOUNT

    @property
    def slot(self) -> str:
        """Its credential slot (`account_slot`)."""
        return account_slot(self.region, self.name)

    @property
    def label(self) -> str:
        """How it is named to a person: `work (cn)`, `default (global)`."""
        return f"{self.name} ({self.region})"

    @property
    def login_command(self) -> str:
        """The sign-in that writes its slot: the plain one for the default region's own slot."""
        if self.is_default:
            return (
                "assistant-auth login"
                if self.region == settings.REGIONS[0]
                else f"assistant-auth login --region {self.region}"
            )
        return f"assistant-auth login --account {self.name} --region {self.region}"


def account_of_slot(storage_name: str) -> AccountRef | None:
    """The account whose slot `storage_name` is (a named account's, or a region's own), else None."""
    if storage_name.startswith(ACCOUNT_PREFIX):
        region, dash, name = storage_name[len(ACCOUNT_PREFIX) :].partition("-")
        if dash and region in settings.REGIONS and valid_account_name(name) and name != DEFAULT_ACCOUNT:
            return AccountRef(region, name)
        return None
    for region in settings.REGIONS:
        if region_storage_name(region) == storage_name:
            return AccountRef(region, DEFAULT_ACCOUNT)
    return None


def _valid_name(name: str) -> bool:
    return 0 < len(name) <= 128 and name[0] in _NAME_FIRST and all(ch in _NAME_REST for ch in name) and ".." not in name


def resolve_storage_name(key: str) -> str:
    if key in (DEFAULT_STORAGE_NAME, DEFAULT_KEY):
        return DEFAULT_STORAGE_NAME
    if key.startswith(_OAUTH_PREFIX):
        rest = key[len(_OAUTH_PREFIX) :]
        if rest and _valid_name(rest):
            return rest
    elif _valid_name(key):
        return key
    raise AuthError(f"Invalid OAuth token key: {key}", kind=Problem.INVALID_KEY)


HOST_SPELLINGS = ("oauthHost", "oauth_host")  # the spec's, then the official client's


def ref_fields(data: object) -> tuple[str | None, str | None] | None:
    """(key, host) of an OAuth reference (spec 2.5), leniently; None when there is none.

    Accepts a mapping (the TOML/JSON `oauth` block) or an object with `key`/`oauth_host`. The
    host is read from `oauthHost` (spec 2.5) and, beyond the spec, from `oauth_host`, the
    spelling the official client writes; a blank `oauthHost` does not hide an `oauth_host`.
    """
    if data is None:
        return None
    if isinstance(data, Mapping):
        key = data.get("key")
        host = None
        for spelling in HOST_SPELLINGS:
            value = data.get(spelling)
            if isinstance(value, str) and value.strip():
                host = value
                break
    elif hasattr(data, "key") and hasattr(data, "oauth_host"):
        key, host = data.key, data.oauth_host
    else:
        return None
    return (key if isinstance(key, str) else None, host if isinstance(host, str) else None)


def host_for_key(key: object, base_url: str) -> str | None:
    """The region host a scoped key was made for: the one region whose derive_scoped_key(host,
    base_url) equals `key`. None when no region (or both) match."""
    if not isinstance(key, str) or not key.strip().startswith(SCOPED_PREFIX):
        return None
    found = [
        settings.oauth_host(region)
        for region in settings.REGIONS
        if derive_scoped_key(settings.oauth_host(region), base_url) == key.strip()
    ]
    return found[0] if len(found) == 1 else None


def provider_ref(oauth: object, base_url: str) -> tuple[dict[str, Any] | None, str | None]:
    """A provider's `oauth` table as the reference to use, and the host inferred for it.

    Beyond the specification (README, "Sharing files with the official client"): when the key
    is scoped but neither spelling gives a host, the host the key was derived for is used (the
    official client drops the host for cn and may rewrite the file without it). Returns
    (reference, inferred host or None); `resolve_context` itself keeps the spec's letter.
    """
    fields = ref_fields(oauth)
    if fields is None:
        return None, None
    key, host = fields
    ref = {"key": key, "oauthHost": host}
    if host is None:
        inferred = host_for_key(key, base_url)
        if inferred is not None and inferred != settings.oauth_host("cn"):
            ref["oauthHost"] = inferred
            return ref, inferred
    return ref, None


def refuse_foreign_fallback(key: str, host: str) -> None:
    """Safety over spec 4.5: an invalid key falls back to the default slot, but that slot's
    refresh token must never go to a host other than the default slot's own (cn) host."""
    try:
        resolve_storage_name(key)
    except AuthError:
        if _normalize(host) != _normalize(settings.oauth_host("cn")):
            raise


def context_fields(ref: object, base_url: str) -> tuple[str, str, str]:
    """Spec 4.5: (storage key, storage name, oauth host without trailing `/`)."""
    fields = ref_fields(ref)
    cn_host = settings.oauth_host("cn")
    if fields is None:
        key, host = DEFAULT_KEY, cn_host
    else:
        ref_key, ref_host = fields
        host = ref_host.strip() if ref_host and ref_host.strip() else cn_host
        key = ref_key.strip() if ref_key and ref_key.strip() else derive_scoped_key(host, base_url)
    try:
        name = resolve_storage_name(key)
    except AuthError:
        name = DEFAULT_STORAGE_NAME
    return key, name, host.rstrip("/")
