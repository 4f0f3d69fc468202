"""Context resolution (spec 2.5, 4.5): the records of the core API (OAuthRef, TokenContext) over
the pure rules of `tui.core.keys`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tui.core.keys import context_fields, ref_fields


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
        key, host = ref_fields(data)
        return cls(key=key, oauth_host=host)


@dataclass(frozen=True)
class TokenContext:
    storage_key: str
    storage_name: str
    oauth_host: str
    token_endpoint: str  # oauth_host + "/api/oauth/token"


def resolve_context(ref: OAuthRef | Mapping | None, base_url: str) -> TokenContext:
    key, name, host = context_fields(ref, base_url)
    return TokenContext(storage_key=key, storage_name=name, oauth_host=host, token_endpoint=host + "/api/oauth/token")
