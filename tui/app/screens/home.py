"""Home: the default slot's state and the region choice."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from tui.core.slots.keys import DEFAULT_STORAGE_NAME
from tui.core.regions import Region, endpoints
from tui.core.slots.state import REVOKED, slot_status
from tui.terminal.text import one_line
from tui.terminal.timefmt import expiry
from tui.app.widgets.safe import PlainStatic, plain


def slot_summary(now: float | None = None) -> tuple[str, str]:
    """(text, css class) describing the default slot."""
    status = slot_status(DEFAULT_STORAGE_NAME, now)
    if status.state == "missing":
        return "Not signed in: no credentials yet.", "missing"
    if status.state == REVOKED:
        return "Signed out (revoked) by the official client: sign in again.", "broken"
    if status.state in ("valid", "expired"):
        verb = "Signed in" if status.state == "valid" else "Signed in, token expired"
        text = f"{verb} · {status.label} · expires {expiry(status.expires_at, now)}"
        if status.state == "expired" and status.has_refresh_token:
            text += " · will refresh on next use"
        return text, "valid" if status.usable else "expired"
    return f"Credentials {status.label}: {one_line(status.detail, 60)}", "broken"


class HomeScreen(Screen):
    BINDINGS = [
        Binding("enter", "start", "Sign in", priority=True),
        Binding("i", "app.inspect", "Credentials"),
        Binding("p", "app.providers", "Providers"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, region: Region = Region.CN) -> None:
        super().__init__()
        self.initial_region = region

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="home"):
            yield Static("Sign in to your coding-assistant account", id="title")
            yield PlainStatic("", id="slot")
            yield Static("Choose the region of your account:", classes="prompt")
            yield OptionList(*self._options(), id="regions")
            yield Static("Enter starts the sign-in. Nothing is requested before that.", classes="hint")
        yield Footer()

    def _options(self) -> list[Option]:
        options = []
        for region in (Region.CN, Region.GLOBAL):
            host = endpoints(region).oauth_host
            label = f"{region.value:<7} {host}" + ("   (default)" if region is Region.CN else "")
            options.append(Option(plain(one_line(label)), id=region.value))  # hosts come from the environment
        return options

    def on_mount(self) -> None:
        regions = self.query_one("#regions", OptionList)
        regions.highlighted = 0 if self.initial_region is Region.CN else 1
        regions.focus()
        self.refresh_slot()
        self.set_interval(5, self.refresh_slot)

    def on_screen_resume(self) -> None:
        self.refresh_slot()

    def refresh_slot(self) -> None:
        text, state = slot_summary()
        slot = self.query_one("#slot", PlainStatic)
        slot.set_text(text)
        slot.set_classes(state)

    @property
    def selected_region(self) -> Region:
        regions = self.query_one("#regions", OptionList)
        index = regions.highlighted or 0
        return Region.GLOBAL if index == 1 else Region.CN

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_start()

    def action_start(self) -> None:
        self.app.action_sign_in(self.selected_region.value)
