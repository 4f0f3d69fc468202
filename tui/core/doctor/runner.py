"""Run every check: the local ones first (fast), then both regions' network paths side by side."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui.core.agent.source import served
from tui.core.credentials.repairs import NotDone
from tui.core.doctor.accounts import check_accounts
from tui.core.doctor.agent import check_agent_socket
from tui.core.doctor.config import check_config, check_credentials, probe_refresh
from tui.core.doctor.leftovers import check_leftovers
from tui.core.doctor.local import check_device_id, check_dirs, check_slot_files
from tui.core.doctor.model import FAIL, OK, SKIP, Check
from tui.core.doctor.network import probe_region
from tui.core.doctor.signin_records import check_signin_records
from tui.core.doctor.trust import check_ca
from tui.core.errors import AuthError
from tui.core.person.overview import overview
from tui.core.spec.settings import REGIONS
from tui.core.text.i18n import in_english, in_the_readers_language
from tui.core.text.phrase import N_, Phrase
from tui.core.text.redact import redact

if TYPE_CHECKING:
    import httpx

Progress = Callable[[str], object]


def guarded(name: str, check: Callable[[], list[Check]]) -> list[Check]:
    """A check that itself breaks (an odd file, a malformed proxy variable) becomes a failed
    check that says so, never a traceback."""
    try:
        return check()
    except Exception as exc:  # noqa: BLE001 - the boundary of one check
        detail = redact(f"{type(exc).__name__}: {exc}")[:200]
        finding = Phrase(N_("This check could not run: {detail}."), detail=detail)
        return [Check(name, FAIL, finding, Phrase(N_("Look at the setting or file it names.")), {})]


def local_checks() -> list[Check]:
    checks = guarded("files.dirs", check_dirs) + guarded("files.slots", check_slot_files)
    checks += guarded("files.leftovers", check_leftovers) + guarded("files.signin", check_signin_records)
    checks += guarded("files.device_id", lambda: [check_device_id()])
    found = functools.cache(served)  # where tokens come from: one look (one ping) for both checks that ask
    checks += guarded("config", check_config) + guarded("agent.socket", lambda: check_agent_socket(found()))
    view = functools.cache(overview)  # read once, inside each guard (a failure there is a finding)
    return (
        checks
        + guarded("credentials", lambda: check_credentials(view(), found()))
        + guarded("accounts", lambda: check_accounts(view()))
    )


async def run_doctor(
    *,
    offline: bool = False,
    probe: bool = False,
    progress: Progress | None = None,
    client: httpx.AsyncClient | None = None,
) -> list[Check]:
    """Every check, in a stable order. `progress(text)` is called as stages start (in the
    reader's language). The findings
    are made in English, the source, in any locale: `--json` and `--report` read the same
    everywhere (and a bug report can be read by whoever it is sent to)."""
    speak = in_the_readers_language()  # the progress lines are for the person: bound before English
    tell = None if progress is None else (lambda text: progress(speak(text)))
    with in_english():
        return await _every_check(offline=offline, probe=probe, progress=tell, client=client)


async def _every_check(
    *, offline: bool, probe: bool, progress: Progress | None, client: httpx.AsyncClient | None
) -> list[Check]:
    say: Progress = progress or (lambda _text: None)
    say(N_("Checking files, config.toml and credentials…"))
    checks = local_checks()
    if offline:
        checks.append(Check("network", SKIP, Phrase(N_("Network checks skipped (offline).")), "", {}))
    else:
        say(N_("Checking the network path to cn and global…"))
        checks += guarded("network.ca", lambda: [check_ca()])
        regions = await asyncio.gather(
            *(asyncio.to_thread(guarded, f"network.{r}", functools.partial(probe_region, r)) for r in REGIONS)
        )
        for found in regions:
            checks.extend(found)
    if probe:
        say(N_("Refreshing the managed slot (--probe)…"))
        checks.append(await probe_refresh(client))
    say(N_("Done."))
    return checks


def recheck(before: list[Check], after: list[Check]) -> list[Check]:
    """The second run after repairs, carrying what each repair did (or why it did not). A check
    whose subject the repair removed (a temp file, a stale lock) is kept from the first run,
    ok when it was repaired."""
    touched = {c.name: c for c in before if c.repaired or c.repair_failed}
    for check in after:
        old = touched.pop(check.name, None)
        if old is not None:
            check.repaired, check.repair_failed = old.repaired, old.repair_failed
    for gone in touched.values():
        if gone.repaired:
            gone.status = OK
    return after + list(touched.values())


def apply_repair(check: Check) -> None:
    """Apply a check's repair; records what it did, or why it failed (never raises)."""
    if check.repair is None:
        return
    try:
        with in_english():  # what it did is part of the findings (see `run_doctor`)
            check.repaired = check.repair.apply()
    except NotDone as exc:  # the fact changed since it was checked, or a link: nothing was changed
        check.repair_failed = exc.reason
    except OSError as exc:
        check.repair_failed = f"{exc.strerror or exc}"
    except AuthError as exc:  # a lock wait that ended, an unreadable config.toml
        check.repair_failed = exc.message
