"""`login --no-tui` (and the demo's plain face): one renderer of `SignIn` in plain lines, the code
and address once, then a live line on a terminal or a line per change in a log, then the outcome."""

from __future__ import annotations

import asyncio
import shutil
import signal
import sys

from tui.cli.output import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    StatusLine,
    ask,
    err,
    out_json,
)
from tui.core.person.same_person import same_person_warning
from tui.core.signals import SignInSignals, confirm_interrupts, end_as_hangup
from tui.core.signin import ondisk
from tui.core.signin.attempt import Outcome, SignIn
from tui.core.spec.keys import DEFAULT_ACCOUNT
from tui.core.spec.paths import credentials_path
from tui.core.spec.regions import Region
from tui.core.text.i18n import _, ngettext, translated
from tui.core.text.textwidth import cells, cut
from tui.core.text.untrusted import clean, one_line
from tui.terminal.browser import open_url, should_auto_open
from tui.terminal.environment import in_ssh, lose_terminal, ssh_note

ADDRESS_WIDTH = 4000  # an address is never cut: a person types it


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
        self.asking = False  # a question waits on the terminal: the live line keeps off it

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
        elif event == "resumed":
            err(
                _(
                    "Resumed the sign-in started at {started}: nobody was polling it; this terminal polls it now."
                ).format(started=attempt.shared.started_clock())
            )
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
            err(ssh_note(attempt.storage_name))
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
                if not self.asking:  # never redrawn over a question (it would hide it)
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
        self.asking = True  # polling waits for the answer; the next poll comes at once after a yes
        try:
            return await asyncio.to_thread(ask, question)
        finally:
            self.asking = False
            self.line.last = ""  # the live line starts on a line of its own again

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
            alike = same_person_warning(attempt.storage_name)
            if alike:
                err(alike)
        elif outcome.kind == "discarded":
            err(_("Sign-in discarded in another terminal: nothing was saved."))
        else:
            err(f"{outcome.title}: {outcome.text}")
        if not attempt.started_here and sys.stdin.isatty() and sys.stderr.isatty():
            ondisk.seen(attempt.region)
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
