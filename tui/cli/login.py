"""`assistant-auth login`: the wizard, or with --no-tui plain text (one renderer of `SignIn`)."""

from __future__ import annotations

import asyncio
import signal
import sys
import time

from tui.cli.home import run_app
from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, StatusLine, ask, err, out_json
from tui.core.errors import AuthError
from tui.core.keys import region_storage_name
from tui.core.regions import parse_region
from tui.core.signin import SignIn
from tui.core.slots.state import signed_in_as, slot_status
from tui.core.untrusted import clean, one_line
from tui.terminal.browser import open_url, should_auto_open

ADDRESS_WIDTH = 4000  # an address is never cut: a person types it


def run(ns) -> int:
    region = parse_region(ns.region) if ns.region else None
    if not ns.no_tui:  # the wizard: --region preselects on the home screen, Enter starts
        return run_app(region=region, no_browser=ns.no_browser)
    region = region or parse_region(None)
    if not ns.force and not _may_replace(region):
        return EXIT_ERROR
    return asyncio.run(plain_login(region, no_browser=ns.no_browser, as_json=ns.json))


def _may_replace(region) -> bool:
    """A session that still works is replaced only when the person says so (or --force)."""
    status = slot_status(region_storage_name(region))
    if not status.usable:
        return True
    current = f"{signed_in_as(status)} (slot {one_line(status.name, 200)}, {status.label})"
    if sys.stdin.isatty():
        if ask(f"{current}. Sign in again and replace this session?"):
            return True
        err("Kept the current session.")
        return False
    err(f"{current}: pass --force to sign in again and replace it.")
    return False


async def plain_login(region, *, no_browser: bool = False, as_json: bool = False) -> int:
    """A sign-in in plain text: the code and address once, then the live line (a terminal) or
    one line per change of state (a log), then the outcome."""
    line = StatusLine()

    def render() -> str:
        return f"Waiting for approval… expires in {attempt.countdown()} · {attempt.stats()}"

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

    attempt = SignIn(region, on_change=on_change)

    try:
        auth = await attempt.request_code()
    except AuthError:
        err(attempt.outcome.error or "")
        if as_json:
            out_json({"event": "error", "message": clean(attempt.outcome.error or "")})
        return EXIT_ERROR
    err(f"Region {region.value}: authorization host {one_line(attempt.host)}")
    err(f"Open:  {one_line(attempt.address or '(no address sent by the server)', ADDRESS_WIDTH)}")
    err(f"Code:  {one_line(auth.user_code)}")
    if attempt.complete_address and attempt.complete_address != attempt.address:
        err(f"(or open {one_line(attempt.complete_address, ADDRESS_WIDTH)} with the code filled in)")
    if as_json:
        data = auth.to_dict()
        data.pop("device_code")  # a secret between this client and the server: never printed
        out_json({"event": "device_authorization", "region": region.value, "oauth_host": attempt.host, **data})
    if attempt.open_target and should_auto_open(no_browser):
        err(open_url(attempt.open_target))

    async def ticker() -> None:
        while True:
            line.show(render())
            await asyncio.sleep(1)

    ticking = asyncio.create_task(ticker()) if line.live else None
    if not line.live:  # a log (CI, a pipe): one line per change of state, never one per second
        err(f"Waiting for approval: the code expires in {attempt.countdown()}; polling every {attempt.interval} s.")
    try:
        outcome = await attempt.poll()
        while attempt.can_keep_polling and await _keep_polling(attempt, line):
            outcome = await attempt.poll()
    except asyncio.CancelledError:
        line.done()
        err("Sign-in discarded: nothing was saved. Run `assistant-auth login` again.")
        return 130
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
        err(f"Credentials written to {one_line(attempt.written['credentials'], 1000)}")
        if attempt.config_note:
            err(one_line(attempt.config_note, 1000))
    else:
        err(f"{outcome.title}: {outcome.text}")
    if as_json:
        out_json({"event": "status", "status": outcome.kind})
    return EXIT_OK if outcome.success else EXIT_FAIL


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
