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


REGIONS = ("cn", "global")  # the one list of region words: the first is the default (spec 1)
HOST_SETTING = {"cn": "ASSISTANT_OAUTH_HOST_CN", "global": "ASSISTANT_OAUTH_HOST_GLOBAL"}  # region -> its variable
_BASE_SETTING = {"cn": "ASSISTANT_BASE_URL_CN", "global": "ASSISTANT_BASE_URL_GLOBAL"}


def region_word(region: object) -> str:
    """The region word of `region` (a word or a `Region`): one of `REGIONS`, anything else the
    default's (spec 1)."""
    word = str(region)
    return word if word in REGIONS else REGIONS[0]


def setting(name: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or DEFAULTS[name]


def oauth_host(region_value: str) -> str:
    """The region's authorization host, without trailing `/`."""
    return setting(HOST_SETTING[region_word(region_value)]).rstrip("/")


def base_url(region_value: str) -> str:
    return setting(_BASE_SETTING[region_word(region_value)]).rstrip("/")


def client_id() -> str:
    return setting("ASSISTANT_CLIENT_ID")
