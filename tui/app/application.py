"""The Textual app: screens registry, global bindings, command palette."""

from __future__ import annotations

import pathlib
import time
from collections.abc import Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from tui.core.regions import Region


class AssistantAuthApp(App):
    CSS_PATH = str(pathlib.Path(__file__).with_name("app.tcss"))  # absolute: subclasses work anywhere
    TITLE = "assistant-auth"
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]

    def __init__(
        self,
        region: Region | None = None,
        *,
        no_browser: bool = False,
        start: str = "home",
        http_client: object | None = None,
    ) -> None:
        super().__init__()
        self.region = region or Region.CN
        self.region_given = region is not None  # else Home preselects the managed provider's region
        self.no_browser = no_browser
        self.start = start
        self.http_client = http_client  # tests may share one httpx client; None: the core makes its own
        self.signin_clock = time.monotonic  # the sign-in's countdown clock (fixed in screenshot scenes)

    def on_mount(self) -> None:
        from tui.app.screens.home import HomeScreen

        self.push_screen(HomeScreen(self.region if self.region_given else None))
        if self.start == "signin":
            self.action_sign_in()
        elif self.start == "inspect":
            self.action_inspect()
        elif self.start == "providers":
            self.action_providers()

    # -- actions reachable from every screen and the command palette --------------------------
    def action_sign_in(self, region: str | None = None, replace: bool = False) -> None:
        """A new sign-in in `region` (default: the app's), over the current screen or instead of it."""
        from tui.app.screens.sign_in import SignInScreen

        screen = SignInScreen(Region(region) if region else self.region)
        self.switch_screen(screen) if replace else self.push_screen(screen)

    def show_outcome(self, attempt) -> None:
        """A finished sign-in replaces its screen: Done on success, else what happened."""
        if attempt.outcome.success:
            from tui.app.screens.done import DoneScreen

            self.switch_screen(DoneScreen(attempt.region))
        else:
            from tui.app.screens.outcome import OutcomeScreen

            self.switch_screen(OutcomeScreen(attempt.region, attempt.outcome, attempt))

    def keep_polling(self, attempt) -> None:
        """Back to the code screen, polling again with the same device code within its deadline."""
        from tui.app.screens.sign_in import SignInScreen

        self.switch_screen(SignInScreen(attempt.region, attempt))

    def action_inspect(self) -> None:
        from tui.app.screens.credentials import CredentialsScreen

        if not isinstance(self.screen, CredentialsScreen):
            self.push_screen(CredentialsScreen())

    def action_providers(self) -> None:
        from tui.app.screens.providers import ProvidersScreen

        if not isinstance(self.screen, ProvidersScreen):
            self.push_screen(ProvidersScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Sign in (cn)", "Start a device sign-in in the cn region", lambda: self.action_sign_in("cn"))
        yield SystemCommand(
            "Sign in (global)", "Start a device sign-in in the global region", lambda: self.action_sign_in("global")
        )
        yield SystemCommand("Credentials", "Inspect and repair credential files", self.action_inspect)
        yield SystemCommand("Providers", "View and edit config.toml providers", self.action_providers)
