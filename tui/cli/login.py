"""`assistant-auth login`: the wizard, or with --no-tui plain text (one renderer of `SignIn`)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys

from tui.cli.home import run_app
from tui.cli.output import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    StatusLine,
    ask,
    err,
    out_json,
)
from tui.core.agent.presence import agent_elsewhere
from tui.core.agent.protocol import SOCKET_ENV
from tui.core.i18n import _, ngettext, translated
from tui.core.keys import DEFAULT_ACCOUNT, account_slot
from tui.core.overview import away_lines
from tui.core.paths import credentials_path
from tui.core.regions import Region
from tui.core.signals import SignInSignals, confirm_interrupts, end_as_hangup
from tui.core.signin import follow
from tui.core.signin.attempt import Outcome, SignIn
from tui.core.signin.place import odd
from tui.core.slots.accounts import name_problem
from tui.core.slots.lookup import regions_with
from tui.core.slots.state import signed_in_as, slot_status
from tui.core.textwidth import cells, cut
from tui.core.untrusted import clean, one_line
from tui.terminal.browser import open_url, should_auto_open
from tui.terminal.environment import in_ssh, lose_terminal, ssh_note

ADDRESS_WIDTH = 4000  # an address is never cut: a person types it


def run(ns) -> int:
    given: Region | None = ns.region  # parsed by the option itself
    account: str | None = ns.account
    if account is not None:
        problem = name_problem(account)
        if problem:  # before anything is read, asked or written
            err(_("assistant-auth: {problem}").format(problem=problem))
            return EXIT_ERROR
        given = given or _region_of(account)
        account = None if account == DEFAULT_ACCOUNT else account
    if not ns.force and not _may_sign_in_here():
        return EXIT_ERROR
    if not ns.no_tui and account is None:
        waiting = _waiting_for(given)
        if waiting is not None and ns.new:
            abandon_waiting(waiting)
        elif waiting is not None:  # picked up at once: the same code, followed or resumed
            return run_app(
                region=waiting.region,
                no_browser=ns.no_browser,
                start="signin",
                account=waiting.account,
                from_login=True,
            )
        # --region preselects on Home, Enter starts
        return run_app(region=given, no_browser=ns.no_browser, from_login=True)
    if ns.no_tui:
        say_while_away()
    region = given or (_the_waiting_region() if ns.no_tui else None) or Region.CN
    for line in odd(region) if ns.no_tui else ():  # never used by the sign-in below; said so it can be removed
        err(line.said())
    record = follow.waiting_in(region)
    live = record is not None
    if ns.new and record is not None and live:
        abandon_waiting(record)
        live = False
    if live and record is not None and record.account != account:
        err(waiting_elsewhere(record))
        return EXIT_ERROR
    if not live and not ns.force and not _may_replace(region, account):
        return EXIT_ERROR
    if not ns.no_tui:  # a named account, asked about like the plain face: straight to its sign-in
        return run_app(region=region, no_browser=ns.no_browser, start="signin", account=account, from_login=True)
    return asyncio.run(plain_login(region, no_browser=ns.no_browser, as_json=ns.json, account=account))


def _region_of(account: str) -> Region | None:
    """Without --region: the region where the account `account` already is, if exactly one."""
    where = regions_with(account)
    return Region(where[0]) if len(where) == 1 else None


def waiting_elsewhere(record: follow.Record) -> str:
    """One region has one sign-in waiting for approval at a time: one for another account is
    finished (or abandoned) first, never joined (its tokens would go to that account); one nobody
    polls any more is resumed first."""
    other = record.account or DEFAULT_ACCOUNT
    if not record.polled:
        return _(
            "assistant-auth: a sign-in to account {account} ({region}) started at {started} has nobody polling it "
            "(its process ended); `{command}` resumes it, or run this again with --new to abandon it."
        ).format(
            account=other, region=record.region.value, started=record.started_clock(), command=record.resume_command()
        )
    return _(
        "assistant-auth: a sign-in to account {account} ({region}) started at {started} is waiting for approval; "
        "approve it or run this again with --new to abandon it."
    ).format(account=other, region=record.region.value, started=record.started_clock())


def _the_waiting_region() -> Region | None:
    """Without --region: the region of the one sign-in waiting for approval, if exactly one is."""
    waiting = follow.waiting()
    return waiting[0].region if len(waiting) == 1 else None


def _waiting_for(region: Region | None) -> follow.Record | None:
    """The sign-in `login` picks up: the one waiting in `region`, or without one the only one
    waiting anywhere."""
    if region is not None:
        return follow.waiting_in(region)
    waiting = follow.waiting()
    return waiting[0] if len(waiting) == 1 else None


def abandon_waiting(record: follow.Record) -> None:
    """`--new`: discard the region's waiting attempt (its poller stops within one interval)."""
    follow.abandon(record.region, wait=float(record.interval or 5) + 10)
    err(_("Abandoned the sign-in started at {started}.").format(started=record.started_clock()))


def say_while_away() -> None:
    """How an attempt that went on without a terminal ended, once (seen only on a terminal)."""
    for line in away_lines():
        err(line)
    if sys.stdin.isatty() and sys.stderr.isatty():
        for record in follow.away():
            follow.mark_seen(record.region)


def _may_sign_in_here() -> bool:
    """On a machine whose tokens come from the token agent on the person's own machine, a sign-in
    here stores the refresh token the agent keeps away: said in one line, and asked (or --force)."""
    path = os.environ.get(SOCKET_ENV)
    if not path or not agent_elsewhere(path):
        return True
    err(
        _(
            "assistant-auth: this machine gets its tokens from the token agent on your own machine ({variable}); "
            "signing in here stores a refresh token on this machine."
        ).format(variable=SOCKET_ENV)
    )
    if sys.stdin.isatty():
        if ask(_("Sign in on this machine anyway?")):
            return True
        err(_("Cancelled: nothing was stored on this machine."))
        return False
    err(_("assistant-auth: pass --force to sign in on this machine anyway."))
    return False


def _may_replace(region: Region, account: str | None = None) -> bool:
    """A session that still works is replaced only when the person says so (or --force)."""
    status = slot_status(account_slot(region, account or DEFAULT_ACCOUNT))
    if not status.usable:
        return True
    if status.refresh_rejected:  # working until it expires, then not: nothing to keep
        err(_("{who}: the server rejected its refresh token; signing in again.").format(who=signed_in_as(status)))
        return True
    current = _("{who} (slot {slot}, {state})").format(
        who=signed_in_as(status), slot=one_line(status.name, 200), state=status.label
    )
    if sys.stdin.isatty():
        if ask(_("{session}. Sign in again and replace this session?").format(session=current)):
            return True
        err(_("Cancelled: kept the current session."))
        return False
    err(_("{session}: pass --force to sign in again and replace it.").format(session=current))
    return False


async def plain_login(
    region: Region,
    *,
    no_browser: bool = False,
    as_json: bool = False,
    detachable: bool = True,
    account: str | None = None,
) -> int:
    """A sign-in in plain text: the code and address once, then the live line (a terminal) or
    one line per change of state (a log), then the outcome. Into a region where another terminal
    already signs in, it follows that attempt to its end instead of starting a second one."""
    face = PlainSignIn(region, no_browser=no_browser, as_json=as_json, detachable=detachable, account=account)
    return await face.run()


class PlainSignIn:
    """The plain-text face of one `SignIn`: it prints what the attempt says, nothing more."""

    def __init__(
        self, region: Region, *, no_browser: bool, as_json: bool, detachable: bool, account: str | None = None
    ) -> None:
        self.no_browser = no_browser
        self.as_json = as_json
        self.line = StatusLine()
        self.attempt = SignIn(region, on_change=self.on_change, detachable=detachable, account=account)
        self.terminated = 0  # the signal that ended the sign-in (SIGTERM), if one did
        self.ticking: asyncio.Task | None = None

    async def run(self) -> int:
        main = asyncio.current_task()
        if main is None:  # pragma: no cover - run() is always awaited in a task
            raise RuntimeError("the sign-in runs in a task")

        def discard() -> None:  # SIGTERM means "discard", as Ctrl+C does
            self.terminated = signal.SIGTERM
            main.cancel()

        policy = SignInSignals(discard=discard, lost_terminal=self.terminal_lost)
        policy.install()  # before the first request: the attempt is recorded from the moment it has a code
        try:
            outcome = await self.attempt.run()
            while self.attempt.can_keep_polling and await self._keep_polling():
                outcome = await self.attempt.poll()
            if self.attempt.can_keep_polling:  # the person said no: the attempt ends here
                self.attempt.give_up()
        except asyncio.CancelledError:
            return self.cancelled()
        finally:
            if self.ticking:
                self.ticking.cancel()
            policy.remove()
        self.line.done()
        return self.report(outcome)

    # -- what the attempt says -------------------------------------------------------------------
    def on_change(self, event: str) -> None:
        attempt = self.attempt
        if event == "following":
            started = attempt.shared.started_clock()
            if attempt.auth:
                err(
                    _("Following the sign-in started at {started} ({left} left).").format(
                        started=started, left=attempt.countdown()
                    )
                )
            else:
                err(_("Following the sign-in started at {started}.").format(started=started))
            err(_("`assistant-auth login --new` abandons it and starts fresh."))
        elif event == "code":
            self.show_code()
        elif event == "slow_down":
            self.line.done()
            err(_("The server asked to slow down: polling every {interval} s now.").format(interval=attempt.interval))
        elif event == "saving":  # the approved tokens wait for the slot: a first Ctrl+C only asks
            task = asyncio.current_task()  # the sign-in's own task: told on its event loop
            confirm_interrupts(
                lambda: self._discard_approved(task),
                lambda: err(_("Press Ctrl+C again within 5 s to discard the approved sign-in, or wait.")),
            )
            self.line.done()
            err(one_line(attempt.lock_wait or "", 1000))
            err(
                _(
                    "The sign-in is approved and will be saved as soon as the lock is free; "
                    "press Ctrl+C twice to discard it."
                )
            )

    def _discard_approved(self, task: asyncio.Task | None) -> None:
        err(_("Discarding the approved sign-in."))
        if task is not None:
            task.cancel()

    def show_code(self) -> None:
        attempt = self.attempt
        auth = attempt.auth
        if auth is None:  # pragma: no cover - "code" is told with the code
            return
        region = attempt.region
        if attempt.shared.stalled:
            err(
                _(
                    "The terminal that started this sign-in has shown no code for {seconds} s (stopped?): "
                    "this one asked for a code of its own, which other terminals cannot follow."
                ).format(seconds=f"{attempt.CODE_WAIT:g}")
            )
        elif attempt.shared.problem:
            err(
                one_line(
                    _(
                        "This sign-in cannot be followed from another terminal: {problem} "
                        "(remove it; `assistant-auth doctor` shows how)."
                    ).format(problem=attempt.shared.problem),
                    1000,
                )
            )
        err(_("Region {region}: authorization host {host}").format(region=region.value, host=one_line(attempt.host)))
        if attempt.account:
            err(
                _("Account: {account} (its own slot, {slot})").format(
                    account=attempt.account, slot=attempt.storage_name
                )
            )
        address = one_line(attempt.address or _("(no address sent by the server)"), ADDRESS_WIDTH)
        err(_("Open:  {address}").format(address=address))
        err(_("Code:  {code}").format(code=one_line(auth.user_code)))
        if attempt.complete_address and attempt.complete_address != attempt.address:
            err(_("Or open, with the code filled in:"))  # on a line of its own: never cut, never wrapped mid-line
            err(f"       {one_line(attempt.complete_address, ADDRESS_WIDTH)}")
        if in_ssh() and attempt.detachable:
            err(ssh_note(region.value))
        if self.as_json:
            data = auth.to_dict()
            data.pop("device_code")  # a secret between this client and the server: never printed
            out_json(
                {
                    "event": "device_authorization",
                    "region": region.value,
                    "account": attempt.account or DEFAULT_ACCOUNT,
                    "oauth_host": attempt.host,
                    **data,
                }
            )
        if attempt.started_here and attempt.open_target and should_auto_open(self.no_browser):
            err(open_url(attempt.open_target))
        if self.line.live:
            self.ticking = asyncio.ensure_future(self._tick())
        else:  # a log (CI, a pipe): one line per change of state, never one per second
            err(
                _("Waiting for approval: the code expires in {left}; polling every {interval} s.").format(
                    left=attempt.countdown(), interval=attempt.interval
                )
            )

    async def _tick(self) -> None:
        while True:
            try:
                self.line.show(live_line(self.attempt, shutil.get_terminal_size((80, 24)).columns))
            except OSError:  # EIO: the terminal is gone
                if not self.terminal_lost():
                    end_as_hangup()
                return
            await asyncio.sleep(1)

    def terminal_lost(self) -> bool:
        """SIGHUP, or the terminal fails under our writes: a sign-in that shows its code carries
        on without it (True); anything else ends as a lost terminal always ended it."""
        if not self.attempt.detach():
            return False
        self.line.live = False
        lose_terminal()
        return True

    async def _keep_polling(self) -> bool:
        """After a transient error: keep polling with the same code (the approval may already
        have happened in the browser). Once by itself after a short back-off, then on a terminal
        only when the person says so; without one the error is said once, at the end."""
        attempt = self.attempt
        if attempt.retries_by_itself:
            self.line.done()
            err(attempt.retry_notice())
            await asyncio.sleep(attempt.BACK_OFF)
            return True
        if not sys.stdin.isatty():
            return False
        self.line.done()
        err(((attempt.outcome.error if attempt.outcome else None) or "").splitlines()[0])
        question = _("Keep polling with the same code ({left} left)?").format(left=attempt.countdown())
        return await asyncio.to_thread(ask, question)

    # -- how it ended ------------------------------------------------------------------------------
    def cancelled(self) -> int:
        self.line.done()
        code = 128 + self.terminated if self.terminated else 130
        if self.attempt.watching:
            if self.attempt.stop_watching():
                err(_("Discarded the sign-in that went on without a terminal."))
            else:
                err(_("Stopped following; the sign-in goes on in the other terminal."))
            return code
        err(_("Sign-in discarded: nothing was saved. Run `assistant-auth login` again."))
        return code

    def report(self, outcome: Outcome) -> int:
        attempt = self.attempt
        if outcome.kind == "error":
            if translated():  # a sentence in the reader's language; the spec's message stays verbatim
                err(_("The sign-in stopped with this error:"))
            err(outcome.said or outcome.error or outcome.text)
            if self.as_json:
                out_json({"event": "error", "message": clean(outcome.error or "")})
            return EXIT_ERROR
        if outcome.success:
            err(_("{who}.").format(who=attempt.who()))
            err(_("Credentials written to {path}").format(path=one_line(credentials_path(attempt.storage_name), 1000)))
            if attempt.config_note:
                err(one_line(attempt.config_note, 1000))
        elif outcome.kind == "discarded":
            err(_("Sign-in discarded in another terminal: nothing was saved."))
        else:
            err(f"{outcome.title}: {outcome.text}")
        if not attempt.started_here and sys.stdin.isatty() and sys.stderr.isatty():
            follow.mark_seen(attempt.region)
        if self.as_json:
            out_json({"event": "status", "status": outcome.kind})
        return EXIT_OK if outcome.success else EXIT_FAIL


def live_line(attempt: SignIn, columns: int) -> str:
    """The one live status line, fitted to the terminal's width (re-fitted every second, so a
    resize is followed): the least important parts go first."""
    parts = [
        _("Waiting for approval · {left} left").format(left=attempt.countdown()),
        _("every {interval} s").format(interval=attempt.interval),
        ngettext("{n} poll", "{n} polls", attempt.polls).format(n=attempt.polls),
        ngettext("{n} slow-down", "{n} slow-downs", attempt.slow_downs).format(n=attempt.slow_downs),
    ]
    while len(parts) > 1 and cells(" · ".join(parts)) > columns - 1:
        parts.pop()
    return cut(" · ".join(parts), max(columns - 1, 1))
