"""A region's endpoints (spec 1, core-api `Endpoints`): its authorization host and API base, read
from the settings at call time. Apart from `regions` so that `Region` loads no `dataclasses`."""

from __future__ import annotations

from dataclasses import dataclass

from tui.core.spec import settings


@dataclass(frozen=True)
class Endpoints:
    oauth_host: str  # no trailing "/"
    base_url: str


def endpoints(region: object) -> Endpoints:
    """The endpoints of `region` (a `Region`, a word, or None: the default region's)."""
    value = settings.region_word(region.strip().lower() if isinstance(region, str) else region)  # parse_region's rule
    return Endpoints(oauth_host=settings.oauth_host(value), base_url=settings.base_url(value))
