"""Code display and live polling: the code stays on screen while the worker polls."""

from __future__ import annotations

import time

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, LoadingIndicator, Static

from tui.core.device_flow import DeviceAuthorization
from tui.core.errors import AuthError
from tui.core.regions import Region, endpoints
from tui.messages import CodeReady, PollUpdate, SignInFinished
from tui.text import clean, one_line
from tui.timefmt import clock
from tui.widgets.safe import PlainStatic


def spaced(code: str) -> str:
    """`WDJB-MJHT` -> `W D J B - M J H T`: easier to read aloud and to type."""
    return " ".join(one_line(code))


class SignInScreen(Screen):
    BINDINGS = [
        Binding("c", "copy_code", "Copy code"),
        Binding("u", "copy_url", "Copy URL"),
        Binding("o", "open_browser", "Open browser"),
        Binding("r", "toggle_qr", "QR code"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, region: Region) -> None:
        super().__init__()
        self.account_region = region
        self.auth: DeviceAuthorization | None = None
        self.refusal: str | None = None  # why the browser policy refuses the address, if it does
        self.saving = False  # approved tokens are waiting for the slot's locks
        self.started = 0.0
        self.deadline = 0.0
        self.polls = 0
        self.slow_downs = 0
        self.interval = 0
        self.state = "requesting"

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        host = endpoints(self.account_region).oauth_host
        yield Header()
        with Horizontal(id="signin"):
            with Vertical(id="code-pane"):
                yield PlainStatic(f"Region {self.account_region.value} · authorization host {host}", id="host")
                yield LoadingIndicator(id="requesting")
                yield Static("1. Open this address in a browser, on any device:", classes="step")
                yield PlainStatic("", id="uri")
                yield Static("2. Enter this code there:", classes="step")
                yield PlainStatic("", id="user-code")
                yield PlainStatic("", id="poll-state")
                yield PlainStatic("", id="poll-stats")
                yield PlainStatic("", id="notice")
            yield Vertical(id="qr-pane")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "assistant-auth"
        self.sub_title = f"sign in · {self.account_region.value}"
        for widget_id in ("#uri", "#user-code", "#qr-pane"):
            self.query_one(widget_id).display = False
        self.set_interval(1, self.tick)
        self.run_sign_in()

    # -- the worker: request a code, then poll; posts messages back ---------------------------
    @work(exclusive=True, group="sign-in")
    async def run_sign_in(self) -> None:
        from tui.core.device_flow import poll_device_token, start_device_authorization
        from tui.core.locks import reporting_to

        try:
            auth = await start_device_authorization(self.account_region, client=self.app.http_client)
            self.post_message(CodeReady(auth))
            # a wait for the slot's locks (another client refreshing) is said on screen; from
            # then on the approved tokens are waiting, and Esc asks before discarding them
            with reporting_to(self.waiting_for_lock):
                status = await poll_device_token(
                    auth.device_code,
                    auth.poll_interval,
                    self.account_region,
                    client=self.app.http_client,
                    on_status=lambda s: self.post_message(PollUpdate(s)),
                )
        except AuthError as exc:
            self.post_message(SignInFinished(None, exc.describe()))
            return
        self.post_message(SignInFinished(status))

    def on_code_ready(self, message: CodeReady) -> None:
        auth = message.auth
        self.auth = auth
        self.started = time.monotonic()
        self.deadline = self.started + auth.time_budget
        self.interval = max(auth.poll_interval, 1)
        self.state = "waiting"
        self.query_one("#requesting").display = False
        uri = self.query_one("#uri", PlainStatic)
        uri.set_text(auth.verification_uri or auth.verification_uri_complete or "(the server sent no address)")
        uri.display = True
        code = self.query_one("#user-code", PlainStatic)
        code.set_text(spaced(auth.user_code))
        code.display = True
        self.tick()
        from tui.browser import address_refusal, open_url, should_auto_open

        target = auth.verification_uri_complete or auth.verification_uri
        self.refusal = address_refusal(target)
        self.refresh_bindings()
        if target and self.refusal:  # still shown above as inert text, never opened or drawn
            text = f"This address will not be opened or drawn as a QR code: {self.refusal}."
            self.notice(text)
            self.notify(text, severity="warning", timeout=10, markup=False)  # small terminals too
        elif target and should_auto_open(self.app.no_browser):
            self.notice(open_url(target))

    def on_poll_update(self, message: PollUpdate) -> None:
        self.polls += 1
        if message.status.interval:
            self.interval = message.status.interval
        if message.status.status == "slow_down":
            self.slow_downs += 1
            self.notice(f"The server asked us to slow down: polling every {self.interval} s now.")
        self.tick()

    def on_sign_in_finished(self, message: SignInFinished) -> None:
        from tui.screens.done import DoneScreen
        from tui.screens.outcome import OutcomeScreen

        if message.status is not None and message.status.status == "success":
            self.app.switch_screen(DoneScreen(self.account_region))
            return
        kind = "error" if message.status is None else message.status.status
        self.app.switch_screen(OutcomeScreen(self.account_region, kind, message.error))

    # -- live status ---------------------------------------------------------------------------
    def tick(self) -> None:
        state = self.query_one("#poll-state", PlainStatic)
        stats = self.query_one("#poll-stats", PlainStatic)
        if self.auth is None:
            state.set_text("Requesting a code…")
            stats.set_text("")
            return
        left = self.deadline - time.monotonic()
        state.set_text(f"Waiting for you to approve in the browser…  code expires in {clock(left)}")
        stats.set_text(
            f"polling every {self.interval} s · {self.polls} polls answered · {self.slow_downs} slow-downs"
        )

    def notice(self, text: str) -> None:
        self.query_one("#notice", PlainStatic).set_text(text)

    # -- actions -------------------------------------------------------------------------------
    def _copy(self, text: str | None, what: str) -> None:
        if not text:
            self.notice(f"No {what} to copy yet.")
            return
        from tui.clipboard import copy_text

        self.notice(copy_text(clean(text), what, self.app.copy_to_clipboard))

    def action_copy_code(self) -> None:
        self._copy(self.auth.user_code if self.auth else None, "code")

    def action_copy_url(self) -> None:
        auth = self.auth
        self._copy((auth.verification_uri_complete or auth.verification_uri) if auth else None, "address")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`o Open browser` is offered only for an address the browser policy accepts."""
        if action == "open_browser":
            return self.auth is not None and self.refusal is None
        return True

    def action_open_browser(self) -> None:
        from tui.browser import open_url

        if self.auth is None:
            return
        if self.app.no_browser:
            self.notice("Browser disabled by --no-browser: open the address on any device.")
            return
        target = self.auth.verification_uri_complete or self.auth.verification_uri
        self.notice(open_url(target) if target else "The server sent no address to open.")

    def action_toggle_qr(self) -> None:
        from tui.widgets.qr import QRCode, qr_size

        pane = self.query_one("#qr-pane")
        if pane.display:
            pane.display = False
            pane.remove_children()
            return
        from tui.browser import address_refusal

        data = self.auth.verification_uri_complete if self.auth else None
        if not data:
            self.notice("No complete verification address to encode: use the address and code shown.")
            return
        refusal = address_refusal(data)
        if refusal is not None:
            self.notice(f"No QR code for this address: {refusal}.")
            return
        size = qr_size(data)
        if size is None:
            self.notice("The address is too long for a QR code: use the address and code shown.")
            return
        width, height = size
        room_w = self.size.width - 44
        room_h = self.size.height - 4
        if width > room_w or height > room_h:
            self.notice(f"The terminal is too small for the QR code ({width}×{height} needed): use the address.")
            return
        pane.mount(QRCode(data, id="qr"))
        pane.display = True

    def waiting_for_lock(self, text: str) -> None:
        self.saving = True
        self.notice(text)
        self.notify(text, severity="warning", timeout=10, markup=False)

    def action_cancel(self) -> None:
        if not self.saving:
            self._cancel()
            return
        from tui.screens.confirm import ConfirmScreen

        def answer(discard: bool | None) -> None:
            if discard:
                self._cancel()

        self.app.push_screen(
            ConfirmScreen(
                "Discard your approved sign-in?",
                "The service approved this sign-in. Its tokens are waiting for another program to "
                "release the credential lock, and will be saved as soon as it does. Discarding "
                "them means signing in again.",
                yes="Discard",
                no="Keep waiting",
            ),
            answer,
        )

    def _cancel(self) -> None:
        self.workers.cancel_group(self, "sign-in")
        self.app.pop_screen()
