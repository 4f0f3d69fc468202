"""`assistant-auth login`: the wizard, or with --no-tui plain text (one renderer of `SignIn`)."""

from __future__ import annotations

import asyncio
import sys

from tui.cli.home import run_app
from tui.cli.login_plain import plain_login
from tui.cli.output import (
    EXIT_ERROR,
    ask,
    err,
    fail,
)
from tui.core.agent.source import signs_in_here
from tui.core.agent.wire.naming import SOCKET_ENV
from tui.core.errors import AuthError, Problem
from tui.core.person.overview import away_lines
from tui.core.signin import follow, ondisk
from tui.core.signin.place import odd
from tui.core.slots.accounts import name_problem
from tui.core.slots.lookup import find
from tui.core.slots.selector import Selector
from tui.core.slots.state import signed_in_as, slot_status
from tui.core.spec.keys import DEFAULT_ACCOUNT, account_slot
from tui.core.spec.regions import Region
from tui.core.text.i18n import _
from tui.core.text.untrusted import one_line


def run(ns) -> int:
    given: Region | None = ns.region  # parsed by the option itself
    account: str | None = ns.account
    if account is not None:
        problem = name_problem(account)
        if problem:  # before anything is read, asked or written
            err(_("assistant-auth: {problem}").format(problem=problem))
            return EXIT_ERROR
        if given is None:  # the region where the account is; in both, asked as `switch` and `token` ask
            try:
                given = Region(find(account))
            except AuthError as exc:
                if exc.kind == Problem.AMBIGUOUS_ACCOUNT:
                    fail(exc)
                    return exc.exit_code
                # no such account yet: a new one, in cn unless said (below)
        account = None if account == DEFAULT_ACCOUNT else account
    if not ns.force and not _may_sign_in_here(Selector(account=account, region=getattr(given, "value", given))):
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
    record = ondisk.waiting_in(region)
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
    waiting = ondisk.waiting()
    return waiting[0].region if len(waiting) == 1 else None


def _waiting_for(region: Region | None) -> follow.Record | None:
    """The sign-in `login` picks up: the one waiting in `region`, or without one the only one
    waiting anywhere."""
    if region is not None:
        return ondisk.waiting_in(region)
    waiting = ondisk.waiting()
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
        for record in ondisk.away():
            ondisk.seen(record.region)


def _may_sign_in_here(selector: Selector) -> bool:
    """On a machine whose tokens come from the token agent on the person's own machine, a sign-in
    here stores the refresh token the agent keeps away: said in one line, and asked (or --force)."""
    if signs_in_here(selector):
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
