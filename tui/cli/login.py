"""`assistant-auth login`: the wizard, or with --no-tui plain text (one renderer of `SignIn`)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import sys
import time

from tui.cli.home import run_app
from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, StatusLine, ask, err, out_json
from tui.core import pending
from tui.core.errors import AuthError
from tui.core.humantime import plural
from tui.core.keys import region_storage_name
from tui.core.overview import away_lines
from tui.core.paths import credentials_path
from tui.core.regions import parse_region
from tui.core.signin import SignIn
from tui.core.slots.state import signed_in_as, slot_status
from tui.core.untrusted import clean, one_line
from tui.terminal.browser import open_url, should_auto_open
from tui.terminal.environment import in_ssh, lose_terminal, ssh_note

ADDRESS_WIDTH = 4000  # an address is never cut: a person types it


def run(ns) -> int:
    region = parse_region(ns.region) if ns.region else None
    if not ns.no_tui:  # the wizard: --region preselects on the home screen, Enter starts
        return run_app(region=region, no_browser=ns.no_browser)
    say_while_away()
    follow = None if ns.new else pending_to_follow(region)
    region = parse_region(follow["region"]) if follow else (region or parse_region(None))
    if ns.new:
        abandon_pending(region)
    if follow is None and not ns.force and not _may_replace(region):
        return EXIT_ERROR
    return asyncio.run(plain_login(region, no_browser=ns.no_browser, as_json=ns.json, follow=follow))


def pending_to_follow(region) -> dict | None:
    """The recorded attempt `login` follows instead of starting a new one: the region's, or with
    no --region the only one pending."""
    regions = [region.value] if region is not None else ["cn", "global"]
    found = [record for record in (pending.read(r) for r in regions) if pending.is_pending(record)]
    return found[0] if len(found) == 1 else None


def abandon_pending(region) -> None:
    """`--new`: discard the region's pending attempt (its poller stops within one interval)."""
    record = pending.read(region.value)
    if not pending.is_pending(record):
        return
    SignIn(region).abandon()
    err(f"Abandoned the sign-in started at {_at(record)}.")
    lease = pending.Lease(region.value)
    deadline = time.monotonic() + float(record.get("interval") or 5) + 10
    while not lease.try_take() and time.monotonic() < deadline:  # the old poller lets go
        time.sleep(0.2)
    lease.release()


def _at(record: dict) -> str:
    return time.strftime("%H:%M", time.localtime(float(record.get("started_at") or 0)))


def say_while_away() -> None:
    """How an attempt that went on without a terminal ended, once (seen only on a terminal)."""
    for line in away_lines():
        err(line)
    if sys.stdin.isatty() and sys.stderr.isatty():
        for record in pending.away():
            pending.mark_seen(str(record.get("region")))


def _may_replace(region) -> bool:
    """A session that still works is replaced only when the person says so (or --force)."""
    status = slot_status(region_storage_name(region))
    if not status.usable:
        return True
    if status.refresh_rejected:  # working until it expires, then not: nothing to keep
        err(f"{signed_in_as(status)}: the server rejected its refresh token; signing in again.")
        return True
    current = f"{signed_in_as(status)} (slot {one_line(status.name, 200)}, {status.label})"
    if sys.stdin.isatty():
        if ask(f"{current}. Sign in again and replace this session?"):
            return True
        err("Cancelled: kept the current session.")
        return False
    err(f"{current}: pass --force to sign in again and replace it.")
    return False


async def plain_login(region, *, no_browser: bool = False, as_json: bool = False, follow: dict | None = None,
                      detachable: bool = True) -> int:
    """A sign-in in plain text: the code and address once, then the live line (a terminal) or
    one line per change of state (a log), then the outcome. `follow`: a recorded attempt of
    another terminal (or of one that went away), followed to its end instead of a new one."""
    line = StatusLine()
    loop = asyncio.get_running_loop()

    def render() -> str:
        return live_line(attempt, shutil.get_terminal_size((80, 24)).columns)

    def on_change(event: str) -> None:
        if event == "slow_down":
            line.done()
            err(f"The server asked to slow down: polling every {attempt.interval} s now.")
        elif event == "saving":
            _confirm_interrupt()  # the approved tokens wait for the slot: a first Ctrl+C only asks
            line.done()
            err(one_line(attempt.lock_wait or "", 1000))
            err("The sign-in is approved and will be saved as soon as the lock is free; "
                "press Ctrl+C twice to discard it.")

    def terminal_lost() -> None:
        """SIGHUP, or the terminal fails under our writes: a pending sign-in carries on without
        it; anything else ends as a lost terminal always ended it."""
        if attempt is not None and attempt.detach():
            line.live = False
            lose_terminal()
            return
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signal.SIGHUP)
        signal.raise_signal(signal.SIGHUP)

    main = asyncio.current_task()
    terminated: list[int] = []
    attempt = None  # until it exists, a lost terminal ends the command as it always did

    def discard_on_sigterm() -> None:  # SIGTERM means "discard", as Ctrl+C does
        terminated.append(signal.SIGTERM)
        main.cancel()

    # before the first request: the attempt is recorded from the moment it has a code
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError, AttributeError):
        loop.add_signal_handler(signal.SIGHUP, terminal_lost)
        loop.add_signal_handler(signal.SIGTERM, discard_on_sigterm)
    if follow is not None:
        attempt = SignIn.from_record(follow, on_change=on_change, detachable=detachable)
        auth = attempt.auth
        err(f"Following the sign-in started at {_at(follow)} ({attempt.countdown()} left).")
        err("`assistant-auth login --new` abandons it and starts fresh.")
    else:
        attempt = SignIn(region, on_change=on_change, detachable=detachable)
        try:
            auth = await attempt.request_code()
        except asyncio.CancelledError:  # SIGTERM or Ctrl+C before the code arrived
            attempt.give_up()
            return 128 + terminated[0] if terminated else 130
        except AuthError:
            err(attempt.outcome.error or "")
            if as_json:
                out_json({"event": "error", "message": clean(attempt.outcome.error or "")})
            return EXIT_ERROR
    err(f"Region {region.value}: authorization host {one_line(attempt.host)}")
    err(f"Open:  {one_line(attempt.address or '(no address sent by the server)', ADDRESS_WIDTH)}")
    err(f"Code:  {one_line(auth.user_code)}")
    if attempt.complete_address and attempt.complete_address != attempt.address:
        err("Or open, with the code filled in:")  # the address on a line of its own: never cut, never wrapped mid-line
        err(f"       {one_line(attempt.complete_address, ADDRESS_WIDTH)}")
    if in_ssh() and detachable:
        err(ssh_note(region.value))
    if as_json:
        data = auth.to_dict()
        data.pop("device_code")  # a secret between this client and the server: never printed
        out_json({"event": "device_authorization", "region": region.value, "oauth_host": attempt.host, **data})
    if follow is None and attempt.open_target and should_auto_open(no_browser):
        err(open_url(attempt.open_target))

    async def ticker() -> None:
        while True:
            try:
                line.show(render())
            except OSError:  # EIO: the terminal is gone
                terminal_lost()
                return
            await asyncio.sleep(1)

    ticking = asyncio.create_task(ticker()) if line.live else None
    if not line.live:  # a log (CI, a pipe): one line per change of state, never one per second
        err(f"Waiting for approval: the code expires in {attempt.countdown()}; polling every {attempt.interval} s.")
    try:
        outcome = await (attempt.follow() if follow is not None else attempt.poll())
        while attempt.can_keep_polling and await _keep_polling(attempt, line):
            outcome = await attempt.poll()
        if attempt.can_keep_polling:  # the person said no: the attempt ends here
            attempt.give_up()
    except asyncio.CancelledError:
        line.done()
        code = 128 + terminated[0] if terminated else 130
        if attempt.role == "watcher":
            if attempt.stop_watching():
                err("Discarded the sign-in that went on without a terminal.")
            else:
                err("Stopped following; the sign-in goes on in the other terminal.")
            return code
        err("Sign-in discarded: nothing was saved. Run `assistant-auth login` again.")
        return code
    finally:
        if ticking:
            ticking.cancel()
    line.done()
    if outcome.kind == "error":
        err(outcome.error or outcome.text)
        if as_json:
            out_json({"event": "error", "message": clean(outcome.error or "")})
        return EXIT_ERROR
    if outcome.success:
        err(f"{attempt.who()}.")
        err(f"Credentials written to {one_line(credentials_path(attempt.storage_name), 1000)}")
        if attempt.config_note:
            err(one_line(attempt.config_note, 1000))
    elif outcome.kind == "discarded":
        err("Sign-in discarded in another terminal: nothing was saved.")
    else:
        err(f"{outcome.title}: {outcome.text}")
    if follow is not None and sys.stdin.isatty() and sys.stderr.isatty():
        pending.mark_seen(region.value)
    if as_json:
        out_json({"event": "status", "status": outcome.kind})
    return EXIT_OK if outcome.success else EXIT_FAIL


def live_line(attempt, columns: int) -> str:
    """The one live status line, fitted to the terminal's width (re-fitted every second, so a
    resize is followed): the least important parts go first."""
    parts = [
        f"Waiting for approval · {attempt.countdown()} left",
        f"every {attempt.interval} s",
        plural(attempt.polls, "poll"),
        plural(attempt.slow_downs, "slow-down"),
    ]
    while len(parts) > 1 and len(" · ".join(parts)) > columns - 1:
        parts.pop()
    return " · ".join(parts)[: max(columns - 1, 1)]


async def _keep_polling(attempt, line: StatusLine) -> bool:
    """After a transient error: keep polling with the same code (the approval may already have
    happened in the browser). Once by itself after a short back-off, then on a terminal only
    when the person says so; without one the error is said once, at the end."""
    if attempt.retries_by_itself:
        line.done()
        err(attempt.retry_notice())
        await asyncio.sleep(attempt.BACK_OFF)
        return True
    if not sys.stdin.isatty():
        return False
    line.done()
    err((attempt.outcome.error or "").splitlines()[0])
    return await asyncio.to_thread(ask, f"Keep polling with the same code ({attempt.countdown()} left)?")


def _confirm_interrupt() -> None:
    """From now on, the first Ctrl+C only warns; a second one within 5 s discards (cancels)."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    pressed: list[float] = []

    def on_sigint() -> None:
        now = time.monotonic()
        if pressed and now - pressed[-1] <= 5:
            err("Discarding the approved sign-in.")
            task.cancel()
            return
        pressed.append(now)
        err("Press Ctrl+C again within 5 s to discard the approved sign-in, or wait.")

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread / not POSIX
        pass
