"""Regions and the settings that locate the servers (spec 1; read from the environment at call time)."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass

# Placeholder values: the real hosts are not part of the specification. Every one of them can be
# replaced through the environment variable named beside it (see README, "Settings").
DEFAULT_OAUTH_HOST_CN = "https://auth.cn.assistant.example"
DEFAULT_OAUTH_HOST_GLOBAL = "https://auth.global.assistant.example"
DEFAULT_BASE_URL_CN = "https://api.cn.assistant.example/coding/v1"
DEFAULT_BASE_URL_GLOBAL = "https://api.global.assistant.example/coding/v1"
DEFAULT_CLIENT_ID = "assistant-auth-public-client"

ENV_OAUTH_HOST_CN = "ASSISTANT_OAUTH_HOST_CN"
ENV_OAUTH_HOST_GLOBAL = "ASSISTANT_OAUTH_HOST_GLOBAL"
ENV_BASE_URL_CN = "ASSISTANT_BASE_URL_CN"
ENV_BASE_URL_GLOBAL = "ASSISTANT_BASE_URL_GLOBAL"
ENV_CLIENT_ID = "ASSISTANT_CLIENT_ID"


class Region(str, enum.Enum):
    CN = "cn"
    GLOBAL = "global"

    def __str__(self) -> str:
        return self.value


def parse_region(hint: object) -> Region:
    """Spec 1: trim and lower-case; `global` selects GLOBAL, anything else (or nothing) CN."""
    if isinstance(hint, Region):
        return hint
    if isinstance(hint, str) and hint.strip().lower() == "global":
        return Region.GLOBAL
    return Region.CN


@dataclass(frozen=True)
class Endpoints:
    oauth_host: str  # no trailing "/"
    base_url: str


def _env(name: str, default: str) -> str:
    value = os.environ.get(name, "").strip()
    return value or default


def endpoints(region: Region | str | None) -> Endpoints:
    region = parse_region(region)
    if region is Region.GLOBAL:
        host = _env(ENV_OAUTH_HOST_GLOBAL, DEFAULT_OAUTH_HOST_GLOBAL)
        base = _env(ENV_BASE_URL_GLOBAL, DEFAULT_BASE_URL_GLOBAL)
    else:
        host = _env(ENV_OAUTH_HOST_CN, DEFAULT_OAUTH_HOST_CN)
        base = _env(ENV_BASE_URL_CN, DEFAULT_BASE_URL_CN)
    return Endpoints(oauth_host=host.rstrip("/"), base_url=base.rstrip("/"))


def client_id() -> str:
    return _env(ENV_CLIENT_ID, DEFAULT_CLIENT_ID)
