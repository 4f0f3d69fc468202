"""Run every check: the local ones first (fast), then both regions' network paths side by side."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from tui.core.doctor.model import SKIP, Check

Progress = Callable[[str], object]


def local_checks() -> list[Check]:
    from tui.core.doctor.config import check_config, check_credentials
    from tui.core.doctor.local import check_device_id, check_dirs, check_leftovers, check_slot_files
    from tui.core.slots.switch import managed_slot

    checks = check_dirs() + check_slot_files() + check_leftovers() + [check_device_id()]
    checks += check_config()
    return checks + check_credentials(managed_slot())


async def run_doctor(
    *, offline: bool = False, probe: bool = False, progress: Progress | None = None, client=None
) -> list[Check]:
    """Every check, in a stable order. `progress(text)` is called as stages start."""
    from tui.core.doctor.network import check_ca, probe_region

    say = progress or (lambda _text: None)
    say("Checking files, config.toml and credentials…")
    checks = local_checks()
    if offline:
        checks.append(Check("network", SKIP, "Network checks skipped (offline).", "", {}))
    else:
        say("Checking the network path to cn and global…")
        checks.append(check_ca())
        regions = await asyncio.gather(*(asyncio.to_thread(probe_region, r) for r in ("cn", "global")))
        for found in regions:
            checks.extend(found)
    if probe:
        from tui.core.doctor.config import probe_refresh

        say("Refreshing the managed slot (--probe)…")
        checks.append(await probe_refresh(client))
    say("Done.")
    return checks


def apply_repair(check: Check) -> None:
    """Apply a check's repair; records what it did, or why it failed (never raises)."""
    from tui.core.errors import AuthError

    if check.repair is None:
        return
    try:
        check.repaired = check.repair.apply()
    except (OSError, AuthError) as exc:
        check.repair_failed = getattr(exc, "strerror", None) or str(exc)
