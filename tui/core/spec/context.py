"""Context resolution (spec 2.5, 4.5): the records of the core API (OAuthRef, TokenContext) over
the pure rules of `tui.core.spec.keys`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tui.core.spec.keys import context_fields, ref_fields

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


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
        fields = ref_fields(data)
        key, host = fields if fields is not None else (None, None)
        return cls(key=key, oauth_host=host)


@dataclass(frozen=True)
class TokenContext:
    storage_key: str
    storage_name: str
    oauth_host: str
    token_endpoint: str  # oauth_host + "/api/oauth/token"


def resolve_context(ref: OAuthRef | Mapping[str, Any] | None, base_url: str) -> TokenContext:
    key, name, host = context_fields(ref, base_url)
    return TokenContext(storage_key=key, storage_name=name, oauth_host=host, token_endpoint=host + "/api/oauth/token")
