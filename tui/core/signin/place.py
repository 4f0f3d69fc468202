"""Where a region's sign-in attempt lives: `<config_dir>/signin/<region>.json` (its record),
`<region>.lock` (the poller's lease) and `<region>.discard` (a request to discard it). Named here
for `follow`, which reads and writes them, and `ondisk`, which looks whether a record is there."""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: names only
if TYPE_CHECKING:  # pragma: no cover
    from tui.core.regions import Region

DIRECTORY = "signin"


def file_name(region: Region, suffix: str) -> str:
    return region.value + suffix


def record_name(region: Region) -> str:
    return file_name(region, ".json")
