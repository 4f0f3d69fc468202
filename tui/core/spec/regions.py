"""Regions (spec 1): the typed API over `settings`. Plain `enum` (which `json` loads anyway): on
`token`'s path where a region is named. `Endpoints` and `endpoints` live in `tui.core.spec.region_endpoints`
(a dataclass) and are found here too, loaded when first asked for."""

from __future__ import annotations

import enum

from tui.core.spec import settings
from tui.core.spec.settings import DEFAULTS, client_id  # noqa: F401 - re-exported

TYPE_CHECKING = False  # not `from typing import`: on `token`'s path
if TYPE_CHECKING:  # pragma: no cover
    from tui.core.spec.region_endpoints import Endpoints as Endpoints, endpoints as endpoints


class Region(str, enum.Enum):
    CN = settings.REGIONS[0]
    GLOBAL = settings.REGIONS[1]

    def __str__(self) -> str:
        return self.value


def parse_region(hint: object) -> Region:
    """Spec 1: trim and lower-case; `global` selects GLOBAL, anything else (or nothing) CN."""
    if isinstance(hint, Region):
        return hint
    return Region(settings.region_word(hint.strip().lower() if isinstance(hint, str) else hint))


def __getattr__(name: str) -> object:
    if name in ("Endpoints", "endpoints"):
        from tui.core.spec import region_endpoints as module  # lazy: `dataclasses`, off `token`'s path

        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
