"""Credential slots: scoped keys, storage names and context resolution (spec 2.5, 4.5)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import AuthError
from .regions import Region, endpoints

DEFAULT_KEY = "oauth/assistant-code"
DEFAULT_STORAGE_NAME = "assistant-code"
SCOPED_PREFIX = "oauth/assistant-code-env-"
_OAUTH_PREFIX = "oauth/"

# Beyond the specification: a storage name becomes a file name, so it is held to a conservative
# alphabet (ASCII letters, digits, "-", "_", ".", not starting with ".") and a sane length. The
# spec's own rule (no "/", no leading ".") is a subset of what this rejects.
_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")


def _normalize(value: str) -> str:
    return value.strip().rstrip("/")


def derive_scoped_key(oauth_host: str, base_url: str) -> str:
    host, base = _normalize(oauth_host), _normalize(base_url)
    cn = endpoints(Region.CN)
    if host == _normalize(cn.oauth_host) and base == _normalize(cn.base_url):
        return DEFAULT_KEY
    text = '{"oauthHost":"' + host + '","baseUrl":"' + base + '"}'
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return SCOPED_PREFIX + digest


def _valid_name(name: str) -> bool:
    return bool(_NAME_RE.fullmatch(name)) and ".." not in name


def resolve_storage_name(key: str) -> str:
    if key in (DEFAULT_STORAGE_NAME, DEFAULT_KEY):
        return DEFAULT_STORAGE_NAME
    if key.startswith(_OAUTH_PREFIX):
        rest = key[len(_OAUTH_PREFIX):]
        if rest and _valid_name(rest):
            return rest
    elif _valid_name(key):
        return key
    raise AuthError(f"Invalid OAuth token key: {key}")


@dataclass(frozen=True)
class OAuthRef:
    """A provider's `oauth` block (spec 2.5). `storage` is ignored on read."""

    key: str | None = None
    oauth_host: str | None = None  # TOML/JSON name: oauthHost

    @classmethod
    def from_mapping(cls, data: object) -> OAuthRef | None:
        if isinstance(data, OAuthRef):
            return data
        if not isinstance(data, Mapping):
            return None
        key = data.get("key")
        host = data.get("oauthHost")
        return cls(
            key=key if isinstance(key, str) else None,
            oauth_host=host if isinstance(host, str) else None,
        )

    def to_mapping(self) -> dict:
        out: dict = {"storage": "file"}
        if self.key is not None:
            out["key"] = self.key
        if self.oauth_host is not None:
            out["oauthHost"] = self.oauth_host
        return out


@dataclass(frozen=True)
class TokenContext:
    storage_key: str
    storage_name: str
    oauth_host: str
    token_endpoint: str  # oauth_host + "/api/oauth/token"


def resolve_context(ref: OAuthRef | Mapping | None, base_url: str) -> TokenContext:
    parsed = OAuthRef.from_mapping(ref) if ref is not None else None
    cn_host = endpoints(Region.CN).oauth_host
    if parsed is None:
        key, host = DEFAULT_KEY, cn_host
    else:
        host = parsed.oauth_host.strip() if parsed.oauth_host and parsed.oauth_host.strip() else cn_host
        if parsed.key and parsed.key.strip():
            key = parsed.key.strip()
        else:
            key = derive_scoped_key(host, base_url)
    try:
        name = resolve_storage_name(key)
    except AuthError:
        name = DEFAULT_STORAGE_NAME
    host = host.rstrip("/")
    return TokenContext(
        storage_key=key,
        storage_name=name,
        oauth_host=host,
        token_endpoint=host + "/api/oauth/token",
    )
