"""Server settings from the environment, read at call time (spec 1, core-api "Settings").

Plain functions on region *values* ("cn", "global"), no enum or dataclass: this module is on the
`assistant-auth token` hot path. `regions.py` builds the typed API on top of it.
"""

from __future__ import annotations

import os

# Placeholder values: the real hosts are not part of the specification. Every one of them can be
# replaced through the environment variable named beside it (see README, "Settings").
DEFAULTS = {
    "ASSISTANT_OAUTH_HOST_CN": "https://auth.cn.assistant.example",
    "ASSISTANT_OAUTH_HOST_GLOBAL": "https://auth.global.assistant.example",
    "ASSISTANT_BASE_URL_CN": "https://api.cn.assistant.example/coding/v1",
    "ASSISTANT_BASE_URL_GLOBAL": "https://api.global.assistant.example/coding/v1",
    "ASSISTANT_CLIENT_ID": "assistant-auth-public-client",
}


def setting(name: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or DEFAULTS[name]


def oauth_host(region_value: str) -> str:
    """The region's authorization host, without trailing `/`."""
    name = "ASSISTANT_OAUTH_HOST_GLOBAL" if region_value == "global" else "ASSISTANT_OAUTH_HOST_CN"
    return setting(name).rstrip("/")


def base_url(region_value: str) -> str:
    name = "ASSISTANT_BASE_URL_GLOBAL" if region_value == "global" else "ASSISTANT_BASE_URL_CN"
    return setting(name).rstrip("/")


def client_id() -> str:
    return setting("ASSISTANT_CLIENT_ID")
