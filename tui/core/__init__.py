"""The specification as a Python API (see shared/design/core-api.md). Never imports Textual.

Names are loaded on first use (PEP 562), so `import tui.core` costs almost nothing and reading a
valid token never imports httpx or tomlkit.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: keep `import tui.core` nearly free

_EXPORTS = {
    "AuthError": "errors",
    "Region": "spec.regions",
    "parse_region": "spec.regions",
    "Endpoints": "spec.region_endpoints",
    "endpoints": "spec.region_endpoints",
    "client_id": "spec.settings",
    "config_dir": "spec.paths",
    "credentials_dir": "spec.paths",
    "credentials_path": "spec.paths",
    "config_path": "spec.paths",
    "device_id_path": "spec.paths",
    "derive_scoped_key": "spec.keys",
    "resolve_storage_name": "spec.keys",
    "OAuthRef": "spec.context",
    "TokenContext": "spec.context",
    "resolve_context": "spec.context",
    "is_expired": "credentials.slot",
    "merge_token_response": "credentials.slot",
    "load_credentials": "credentials.slot",
    "write_credentials": "credentials.slot",
    "device_id": "files.identity",
    "identity_headers": "files.identity",
    "DeviceAuthorization": "signin.protocol",
    "PollStatus": "signin.protocol",
    "start_device_authorization": "signin.protocol",
    "poll_device_token": "signin.api",
    "get_access_token": "credentials.refresh",
    "refresh_access_token": "credentials.refresh",
    "read_valid_token": "credentials.valid",
    "MANAGED_PROVIDER": "spec.keys",
    "provision_managed_provider": "config.provider",
    "persist_device_signin": "signin.store",
    "redact": "text.redact",
    "mask": "text.redact",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tui.core' has no attribute {name!r}")
    import importlib  # lazy: `import tui.core` stays nearly free

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # pragma: no cover - `name as name`: an explicit re-export, for type checkers
    from tui.core.config.provider import provision_managed_provider as provision_managed_provider
    from tui.core.credentials.refresh import (
        get_access_token as get_access_token,
        refresh_access_token as refresh_access_token,
    )
    from tui.core.credentials.slot import (
        is_expired as is_expired,
        load_credentials as load_credentials,
        merge_token_response as merge_token_response,
        write_credentials as write_credentials,
    )
    from tui.core.credentials.valid import read_valid_token as read_valid_token
    from tui.core.errors import AuthError as AuthError
    from tui.core.files.identity import device_id as device_id, identity_headers as identity_headers
    from tui.core.signin.api import poll_device_token as poll_device_token
    from tui.core.signin.protocol import (
        DeviceAuthorization as DeviceAuthorization,
        PollStatus as PollStatus,
        start_device_authorization as start_device_authorization,
    )
    from tui.core.signin.store import persist_device_signin as persist_device_signin
    from tui.core.spec.context import (
        OAuthRef as OAuthRef,
        TokenContext as TokenContext,
        resolve_context as resolve_context,
    )
    from tui.core.spec.keys import (
        MANAGED_PROVIDER as MANAGED_PROVIDER,
        derive_scoped_key as derive_scoped_key,
        resolve_storage_name as resolve_storage_name,
    )
    from tui.core.spec.paths import (
        config_dir as config_dir,
        config_path as config_path,
        credentials_dir as credentials_dir,
        credentials_path as credentials_path,
        device_id_path as device_id_path,
    )
    from tui.core.spec.region_endpoints import Endpoints as Endpoints, endpoints as endpoints
    from tui.core.spec.regions import Region as Region, parse_region as parse_region
    from tui.core.spec.settings import client_id as client_id
    from tui.core.text.redact import mask as mask, redact as redact
