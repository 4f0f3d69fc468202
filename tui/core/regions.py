"""Regions (spec 1): the typed API over `settings`."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from tui.core import settings
from tui.core.settings import DEFAULTS, client_id  # noqa: F401 - re-exported


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


def endpoints(region: Region | str | None) -> Endpoints:
    value = parse_region(region).value
    return Endpoints(oauth_host=settings.oauth_host(value), base_url=settings.base_url(value))
