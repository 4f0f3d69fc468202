"""Code display and live polling: the code stays on screen while the worker polls.

The screen draws a `tui.core.signin.attempt.SignIn`; the worker runs it (it leads the region's
attempt, or follows the one another terminal leads) and posts `SignInScreen.Changed` for every
change, so the screen never keeps counters or flags of its own. What a signal means is the core's
one policy (`tui.core.signals.SignInSignals`).
"""

from __future__ import annotations

import contextlib
import pathlib
import signal

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.widgets import Header
from textual.worker import Worker

from tui.app.carry_on import hand_over
from tui.app.host import AppScreen, Host
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.qr import QRScreen
from tui.app.widgets.code_pane import CodePane
from tui.app.widgets.footer import AppFooter
from tui.app.widgets.qr import QRPane
from tui.core.bounded import within
from tui.core.errors import EXIT_SIGN_IN
from tui.core.signals import SignInSignals
from tui.core.signin.attempt import Phase, SignIn
from tui.core.spec.region_endpoints import endpoints
from tui.core.spec.regions import Region
from tui.core.text.i18n import _
from tui.core.text.phrase import N_
from tui.core.text.untrusted import clean
from tui.terminal.browser import (
    address_refusal,
    browser_commands,
    open_url,
    should_auto_open,
)
from tui.terminal.clipboard import copy_text
from tui.terminal.environment import (
    in_ssh,
    lose_terminal,
    ssh_note,
    supports_hyperlinks,
)

NOTHING_TO_COPY = {"code": N_("No code to copy yet."), "address": N_("No address to copy yet.")}


def event_notice(attempt: SignIn, event: str) -> str:
    """The notice line for following another terminal's attempt and for a server's slow-down."""
    if event == "following":
        return _("Following the sign-in started at {started} in another terminal.").format(
            started=attempt.shared.started_clock()
        )
    if event == "resumed":
        return _("Resumed the sign-in started at {started}: nobody was polling it; this terminal polls it now.").format(
            started=attempt.shared.started_clock()
        )
    return _("The server asked us to slow down: polling every {interval} s now.").format(interval=attempt.interval)


def quit_question(attempt: SignIn | None) -> tuple[str, str] | None:
    """What quitting the app asks while `attempt` goes on (nothing once it has ended)."""
    if attempt is None or attempt.phase is Phase.ENDED:
        return None
    if attempt.saving:
        return (
            _("Quit and discard your approved sign-in?"),
            _("The service approved this sign-in; its tokens are waiting for the credential lock."),
        )
    return (_("Quit while signing in?"), _("The sign-in in progress stops; the code can no longer be used here."))


def discard_question() -> ConfirmScreen:
    """Esc while approved tokens wait for the slot's locks: discarding them means signing in again."""
    return ConfirmScreen(
        _("Discard your approved sign-in?"),
        _(
            "The service approved this sign-in. Its tokens are waiting for another program to "
            "release the credential lock, and will be saved as soon as it does. Discarding "
            "them means signing in again."
        ),
        yes=_("Discard"),
        no=_("Keep waiting"),
    )


def code_heading(region: Region, host: str, account: str | None) -> str:
    """ "Region cn · authorization host …", after the named account when there is one."""
    heading = _("Region {region} · authorization host {host}").format(region=region.value, host=host)
    return _("Account {account} · {heading}").format(account=account, heading=heading) if account else heading


def new_attempt(host: Host, region: Region, account: str | None) -> SignIn:
    """The attempt a code screen draws. A lost terminal lets it carry on, except where tests drive
    the HTTP client or in the demo (its server ends with the app)."""
    detachable = host.http_client is None and host.demo is None
    return SignIn(region, client=host.http_client, clock=host.signin_clock, detachable=detachable, account=account)


class SignInScreen(AppScreen[None]):
    CSS_PATH = str(pathlib.Path(__file__).with_name("sign_in.tcss"))  # loaded when first opened
    BINDINGS = [
        Binding("escape", "cancel", N_("Cancel")),  # first: the footer keeps it at any width
        Binding("a", "demo_approve", N_("Approve (demo)")),  # early: in a demo the key that matters
        Binding("c", "copy_code", N_("Copy code")),
        Binding("u", "copy_url", N_("Copy URL")),
        Binding("o", "open_browser", N_("Open browser")),
        Binding("r", "toggle_qr", N_("QR code")),
    ]

    class Changed(Message):
        """The sign-in attempt changed: `event` is one of `tui.core.signin.EVENTS`."""

        def __init__(self, event: str) -> None:
            super().__init__()
            self.event = event

    def __init__(self, region: Region, attempt: SignIn | None = None, account: str | None = None) -> None:
        super().__init__()
        self.account_region = region
        self.account = attempt.account if attempt is not None else account  # a named account, else None
        self.made: SignIn | None = attempt  # made on mount, or an attempt to keep polling with the same code
        self.signals = SignInSignals(discard=self.terminated, lost_terminal=self.carry_on_without_terminal)
        self.refusal: str | None = None  # why the browser policy refuses the address, if it does
        self.can_open = False  # a browser may and can open the address here (decided once)
        self.leaving = False  # Esc was pressed: back once the attempt has ended

    @property
    def attempt(self) -> SignIn:
        """The attempt this screen draws (made on mount)."""
        if self.made is None:  # pragma: no cover - every caller runs after on_mount
            raise RuntimeError("the sign-in attempt is made on mount")
        return self.made

    @property
    def auth(self):
        return self.made.auth if self.made else None

    @property
    def saving(self) -> bool:
        """Approved tokens are waiting for the slot's locks."""
        return self.made is not None and self.made.saving

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        host = endpoints(self.account_region).oauth_host
        yield Header()
        with Horizontal(id="signin"):
            yield CodePane(code_heading(self.account_region, host, self.account), id="code-pane")
            yield QRPane(id="qr-pane")
        yield AppFooter()

    def on_mount(self) -> None:
        self.title = "assistant-auth"
        self.sub_title = _("sign in · {region}").format(region=self.account_region.value)
        self.query_one("#qr-pane").display = False
        if self.made is None:
            self.made = new_attempt(self.host, self.account_region, self.account)
        self.attempt.on_change = lambda event: self.post_message(self.Changed(event))
        self.set_interval(1, self.tick)
        self.tick()
        self.signals.install()  # before the first request: the record exists from the code on
        if self.attempt.phase is Phase.NEW:
            self.run_sign_in()
        elif self.attempt.auth is not None:  # keep polling with the same code (from the outcome)
            self.show_code()
            self.keep_polling()

    # -- the worker: run the attempt; its changes come back as messages ------------------------
    @work(exclusive=True, group="sign-in")
    async def run_sign_in(self) -> None:
        await self.attempt.run()

    @work(exclusive=True, group="sign-in")
    async def keep_polling(self) -> None:
        await self.attempt.poll()

    # -- a lost terminal: the sign-in carries on without it -------------------------------------
    def terminated(self) -> None:
        """SIGTERM means "discard", as Esc does: the attempt's record says so, then the app ends."""
        self.workers.cancel_group(self, "sign-in")
        self.app.exit(return_code=128 + signal.SIGTERM)

    def on_unmount(self) -> None:
        if not self.host.detached_attempt:  # a detached sign-in keeps SIGHUP ignored to its end
            self.signals.remove()

    def carry_on_without_terminal(self) -> bool:
        """The terminal is gone (SIGHUP, or EIO under Textual's reader): a sign-in that has shown
        its code carries on after the app, which ends between polls (no server answer is dropped)."""
        if self.made is None or not self.made.detach():
            return False
        lose_terminal()
        self.host.detached_attempt = self.attempt
        self.attempt.when_idle(self._hand_over)  # between polls: no server answer is dropped
        return True

    def _hand_over(self) -> None:
        """Idle (nothing in flight): the attempt goes on after the app (`carry_on.hand_over`)."""
        if self.made is not None:
            hand_over(self.app, [worker for worker in self.workers if worker.group == "sign-in"], self.attempt)

    def on_sign_in_screen_changed(self, message: Changed) -> None:
        event = message.event
        if event in ("following", "resumed", "slow_down"):
            self.notice(event_notice(self.attempt, event))
        elif event == "code":
            self.show_code()
        elif event == "saving":
            # a wait for the slot's locks (another client refreshing) is said on screen; from
            # then on the approved tokens are waiting, and Esc asks before discarding them
            self.warn(self.attempt.lock_wait or "")
        elif event == "finished" and self.attempt.retries_by_itself:
            self.warn(self.attempt.retry_notice(), timeout=self.attempt.BACK_OFF + 2)
            self.set_timer(self.attempt.BACK_OFF, self.keep_polling)
            return
        elif event == "finished":
            # a toast of this screen ("polling again in 3 s…", a lock wait) is over: the outcome
            # says what happened, and no stale toast lands on it
            self.app.clear_notifications()
            self.host.show_outcome(self.attempt)
            return
        self.tick()

    @property
    def pane(self) -> CodePane:
        return self.query_one("#code-pane", CodePane)

    def show_code(self) -> None:
        attempt = self.attempt
        if attempt.account != self.account:  # following another terminal's attempt: its account gets the tokens
            self.account = attempt.account
            self.pane.set_heading(code_heading(self.account_region, attempt.host, self.account))
        target = attempt.open_target
        self.refusal = address_refusal(target)
        self.can_open = self.refusal is None and self.browser_available()
        demo = self.host.demo
        self.pane.show_code(
            attempt,
            refusal=self.refusal,
            links=supports_hyperlinks(),
            ssh_line=ssh_note(attempt.storage_name) if in_ssh() and attempt.detachable else None,
            demo_line=_("Demo: press a to approve, or approve at {page}").format(page=demo.page)
            if demo is not None
            else None,
        )
        self.refresh_bindings()
        if target and self.refusal:  # still shown above as inert text, never opened or drawn
            self.warn(_("This address will not be opened or drawn as a QR code: {reason}.").format(reason=self.refusal))
        elif target and attempt.started_here and should_auto_open(self.host.no_browser):
            self.notice(open_url(target))

    # -- live status ---------------------------------------------------------------------------
    def tick(self) -> None:
        self.pane.tick(self.attempt)

    def notice(self, text: str) -> None:
        self.pane.notice(text)

    def report(self, text: str, severity: SeverityLevel = "information") -> None:
        self.pane.report(text, severity)

    def warn(self, text: str, timeout: float = 10) -> None:
        """Said on the notice line and as a toast (a small terminal may not show the line)."""
        self.notice(text)
        self.notify(text, severity="warning", timeout=timeout, markup=False)

    def notice_in_view(self) -> bool:
        return self.pane.notice_in_view()

    def quit_question(self) -> tuple[str, str] | None:
        return quit_question(self.made)

    # -- actions -------------------------------------------------------------------------------
    def _copy(self, text: str | None, what: str) -> None:
        if not text:
            self.report(_(NOTHING_TO_COPY[what]), "warning")
            return
        self.report(copy_text(clean(text), what, self.app.copy_to_clipboard))

    def action_copy_code(self) -> None:
        self._copy(self.auth.user_code if self.auth else None, "code")

    def action_copy_url(self) -> None:
        self._copy(self.made.open_target if self.made else None, "address")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`o Open browser` is offered only where a browser can open (never over SSH) and for an
        address the browser policy accepts; `a` only in the demo; `c`, `u` and `r` once there is a
        code to copy or draw (never offered only to say there is nothing yet)."""
        if action in ("copy_code", "copy_url", "toggle_qr"):
            return self.auth is not None
        if action == "open_browser":
            return self.auth is not None and self.can_open
        if action == "demo_approve":
            return self.host.demo is not None and self.auth is not None
        return True

    def browser_available(self) -> bool:
        target = self.made.open_target if self.made else None
        return not self.host.no_browser and bool(target and browser_commands(target))

    def action_demo_approve(self) -> None:
        """The demo's `a`: approved on its page, as a person of the account's own (`demo-work`
        for account work), so two accounts are two people; the page lets anyone be chosen."""
        if self.host.demo is not None and self.auth is not None:
            who = f"demo-{self.account}" if self.account else None
            self.report(self.host.demo.approve(self.auth.user_code, who))

    def action_open_browser(self) -> None:
        if self.auth is None:
            return
        if self.host.no_browser:
            self.report(_("Browser disabled by --no-browser: open the address on any device."))
            return
        target = self.attempt.open_target
        self.report(open_url(target) if target else _("The server sent no address to open."))

    def action_toggle_qr(self) -> None:
        data = self.auth.verification_uri_complete if self.auth else None
        refusal = address_refusal(data) if data else None
        place, why = self.query_one(QRPane).toggle(data, refusal, self.size.width, self.size.height)
        if place == "alone" and data:
            self.app.push_screen(QRScreen(data))
        elif why:
            self.report(why, "warning")

    def action_cancel(self) -> None:
        if not self.saving:
            self._cancel()
            return

        def answer(discard: bool | None) -> None:
            if discard:
                self._cancel()

        self.app.push_screen(discard_question(), answer)

    def _cancel(self) -> None:
        if self.made is not None and self.made.watching:
            discarded = self.attempt.stop_watching()  # a watcher only stops, unless nobody else can
            self.app.notify(STOPPED_FOLLOWING[discarded](), markup=False)
        if not self.leaving:  # a second Esc while the first one's attempt ends: once is enough
            self.leaving = True
            self.call_later(self._back_once_ended, self.workers.cancel_group(self, "sign-in"))

    async def _back_once_ended(self, stopping: list[Worker[None]]) -> None:
        await ended(stopping)
        self.host.back(EXIT_SIGN_IN)


STOPPED_FOLLOWING = {  # a watching terminal's Esc: it discarded the attempt (True) or only stopped following
    True: lambda: _("Discarded the sign-in that went on without a terminal."),
    False: lambda: _("Stopped following; the sign-in goes on in the other terminal."),
}


async def ended(stopping: list[Worker[None]], seconds: float = 2.0) -> None:
    """Wait (at most `seconds`) until cancelled workers have ended: a cancelled attempt ends its
    record first (walked: Home, drawn at once after Esc, still said the sign-in waited for approval
    and offered to follow it)."""
    for worker in stopping:
        with contextlib.suppress(Exception):  # cancelled, as asked (WorkerCancelled), or failed: ended
            await within(worker.wait(), seconds)
