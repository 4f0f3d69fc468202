"""The Textual app: screens registry, global bindings, command palette."""

from __future__ import annotations

import gc
import pathlib
import sys
import time
from collections.abc import Callable, Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.content import Content
from textual.notifications import Notify
from textual.screen import Screen

from tui.app.palette import PLACEHOLDER, Command, Commands, textual_commands
from tui.app.screens.home import HomeScreen
from tui.app.screens.waiting import stopped_line
from tui.app.signin_flow import SignInFlow
from tui.core.agent.client.presence import agent_socket
from tui.core.errors import AuthError
from tui.core.spec.regions import Region
from tui.core.spec.settings import REGIONS
from tui.core.text.i18n import _
from tui.core.text.phrase import N_
from tui.core.text.textwidth import wrap

# Only Home (the first screen) and the quit question load with the app: every other screen is
# imported when it is first opened, so `assistant-auth` paints its first frame as soon as Textual
# can (docs/performance.md, `make bench`).


def toast_columns(screen_columns: int) -> int:
    """The cells of a toast's line, as Textual lays a toast out (measured: 26 cells wide at 60
    columns, 46 at 100, 57 at most), less its border and padding (walked: Textual broke
    "config.toml" inside a Chinese toast at 60 columns)."""
    return max(min(57, (screen_columns - 8) // 2) - 3, 10)


class AssistantAuthApp(SignInFlow, App):
    COMMANDS = {Commands}  # the palette: our commands and Textual's, in the reader's language
    CSS_PATH = str(pathlib.Path(__file__).with_name("app.tcss"))  # absolute: subclasses work anywhere
    TITLE = "assistant-auth"
    BINDINGS = [
        Binding("ctrl+q", "request_quit", N_("Quit"), priority=True),
        # not a priority: in a text field ctrl+c copies, as Textual's inputs do
        Binding("ctrl+c", "request_quit", N_("Quit"), show=False),
        Binding("question_mark,f1", "help", N_("Help")),
    ]

    def __init__(
        self,
        region: Region | None = None,
        *,
        no_browser: bool = False,
        start: str = "home",
        http_client: object | None = None,
        demo: object | None = None,
        collector_paused: bool = False,
        account: str | None = None,
        slot: str | None = None,
        from_login: bool = False,
    ) -> None:
        super().__init__()
        # `login`: a finished sign-in returns to the shell (its lines printed there), as `gh auth login` does
        self.from_login = from_login
        self.farewell: list[str] = []  # printed by `run_app` once the terminal is the shell's again
        self.account = account  # `login --account NAME`: the named account the sign-in goes to
        self.start_slot = slot  # `inspect --account NAME`: the slot the inspector opens on
        self.collector_paused = collector_paused  # by `run_app` for the start: runs again from the first frame
        self.region = region or Region.CN
        self.region_given = region is not None  # else Home preselects the managed provider's region
        self.no_browser = no_browser
        self.start = start
        self.http_client = http_client  # tests may share one httpx client; None: the core makes its own
        self.signin_clock = time.monotonic  # the sign-in's countdown clock (fixed in screenshot scenes)
        # `assistant-auth demo` only: an object with `page` (the local approval page's address)
        # and `approve(user_code) -> str` (approves through that page, returns what happened)
        self.demo = demo
        self.detached_attempt = None  # a sign-in whose terminal went away: carried on after the app

    def exit(self, result=None, return_code: int = 0, message=None) -> None:
        """End the app, after the answer of a refresh already sent is stored: its worker would be
        cancelled with the app, and a rotated refresh token lost (Esc, ctrl+q, `back` to the shell)."""
        signals = sys.modules.get("tui.core.signals")  # never loaded: no refresh was ever sent
        if signals is not None and signals.storing():
            self.set_timer(0.05, lambda: self.exit(result, return_code, message))
            return
        super().exit(result, return_code, message)

    def panic(self, *renderables) -> None:
        """Textual's input reader dies of EIO when the terminal hangs up: during a sign-in that
        has shown its code, that is a lost terminal, and the sign-in carries on."""
        for screen in reversed(self.screen_stack):
            carry_on = getattr(screen, "carry_on_without_terminal", None)  # the code screen's
            if carry_on is not None and carry_on():
                return
        super().panic(*renderables)

    def _on_notify(self, event: Notify) -> None:
        """On a short terminal (60×18) one toast at a time, the newest: stacked, they covered half
        of Home. (Textual's own handler, on the app's thread: a toast from a worker thread too.)"""
        if self.size.height < 24:
            self._notifications.clear()
        note, width = event.notification, toast_columns(self.size.width)
        if not note.markup:  # wrapped by the project's rule: a command, a file name, a word never broken inside
            note.message = "\n".join("\n".join(wrap(line, width)) for line in note.message.split("\n"))
        super()._on_notify(event)

    def on_resize(self, event) -> None:
        # short terminals (60×18): less air on every screen, so what matters stays in view
        self.set_class(event.size.height < 24, "-short")
        self.set_class(event.size.width < 70, "-narrow")  # 60 columns: dialogs' buttons keep their words

    def format_title(self, title: str, sub_title: str) -> Content:
        """ "assistant-auth · sign in · cn": a separator that survives every terminal and font."""
        if not sub_title:
            return Content(title)
        # no-break spaces: a plain space beside a style change is dropped by some renderers (SVG)
        return Content.assemble(Content(title), ("\u00a0·\u00a0", "dim"), Content(sub_title).stylize("dim"))

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        """A clicked hyperlink goes through the same browser policy as `o` (never over SSH,
        never a console browser, only safe addresses)."""
        from tui.terminal.browser import open_url  # lazy: the browser policy loads when a link is clicked, not at start

        self.notify(open_url(url), timeout=6, markup=False)

    def on_ready(self) -> None:
        if self.collector_paused:
            self.collector_paused = False
            gc.enable()

    def get_default_screen(self) -> Screen:
        """Home is the bottom of the stack itself: no blank screen under it to draw first."""
        return HomeScreen(self.region if self.region_given else None)

    def on_mount(self) -> None:
        self.answer_for_the_agent()
        if self.start == "signin":
            self.action_sign_in(account=self.account)
        elif self.start == "inspect":
            self.action_inspect(self.start_slot)
        elif self.start == "providers":
            self.action_providers()
        elif self.start == "doctor":
            self.action_doctor()

    # -- `agent --confirm` on this machine: its questions are asked here -----------------------
    def answer_for_the_agent(self) -> None:
        path = agent_socket()
        if path is None:
            return
        from tui.app.agent_answers import AgentAnswers  # lazy: only where an agent is pointed at

        self.agent_answers = AgentAnswers(self, path)
        self.run_worker(self.agent_answers.run, thread=True, group="agent-answers", exit_on_error=False)

    def on_unmount(self) -> None:
        answers = getattr(self, "agent_answers", None)
        if answers is not None:
            answers.close()  # its worker's read ends: the app exits without waiting for a question

    # -- actions reachable from every screen and the command palette --------------------------
    def action_inspect(self, slot: str | None = None) -> None:
        from tui.app.screens.credentials import (  # lazy: the wizard's cold start (make bench)
            CredentialsScreen,  # loaded when first opened (cold start)
        )

        if not isinstance(self.screen, CredentialsScreen):
            self.push_screen(CredentialsScreen(select=slot))

    def action_doctor(self) -> None:
        from tui.app.screens.doctor import (  # lazy: the wizard's cold start (make bench)
            DoctorScreen,  # loaded when first opened (cold start)
        )

        if not isinstance(self.screen, DoctorScreen):
            self.push_screen(DoctorScreen())

    def action_providers(self) -> None:
        from tui.app.screens.providers import (  # lazy: the wizard's cold start (make bench)
            ProvidersScreen,  # loaded when first opened (cold start)
        )

        if not isinstance(self.screen, ProvidersScreen):
            self.push_screen(ProvidersScreen())

    def back(self, return_code: int = 0) -> None:
        """Back from the screen on top: to the screen under it; from the screen a command opened
        (`inspect`, `config`, a sign-in of `login`), to the shell: Home was never opened there."""
        if self.start != "home" and len(self.screen_stack) <= 2:
            self.exit(return_code=return_code)
        else:
            self.pop_screen()

    def switched(self, outcome: object) -> tuple[bool, str]:
        """A switch's outcome (its sentence, or the AuthError that stopped it) as a toast; returns
        (switched, the sentence shown)."""
        if isinstance(
            outcome, AuthError
        ):  # with its lead sentence in the reader's language, as the command line says it
            said_it = stopped_line(outcome) or outcome.said()
            self.notify(said_it, title=_("Not switched"), severity="warning", timeout=8, markup=False)
            return False, said_it
        if isinstance(outcome, BaseException):
            raise outcome
        self.notify(str(outcome), title=_("Switched"), timeout=8, markup=False)
        return True, str(outcome)

    def action_help(self) -> None:
        from tui.app.screens.help import (  # lazy: the wizard's cold start (make bench)
            HelpScreen,  # loaded when first opened (cold start)
        )

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def quit_question(self) -> tuple[str, str] | None:
        """(title, body) when quitting now would lose something, else None."""
        for screen in reversed(self.screen_stack):
            ask = getattr(screen, "quit_question", None)
            question = ask() if callable(ask) else None
            if question:
                return question
        return None

    def action_request_quit(self) -> None:
        """Quit; while a sign-in is in flight (or an edit unsaved), ask first."""
        from tui.app.screens.confirm import ConfirmScreen  # lazy: the wizard's cold start

        if isinstance(self.screen, ConfirmScreen):  # a question is open: say why Ctrl+C does not quit yet
            self.screen.say(_("Answer the question first (y or n); then Ctrl+C quits."))
            return
        question = self.quit_question()
        if question is None:
            self.exit()
            return
        title, body = question
        self.push_screen(
            ConfirmScreen(title, body, yes=_("Quit"), no=_("Stay")), lambda answer: self.exit() if answer else None
        )

    def commands(self, screen: Screen) -> Iterable[Command]:
        """Every command of the palette, Textual's own ones in our words (`tui.app.palette`)."""
        yield from textual_commands(self, screen)
        yield Command(N_("Help"), N_("Every key of this screen"), self.action_help)
        for region in REGIONS:
            yield Command(
                N_("Sign in ({region})"),
                N_("Start a device sign-in in the {region} region"),
                self._sign_in_to(region),
                region,
            )
        yield Command(N_("Credentials"), N_("Inspect and repair credential files"), self.action_inspect)
        yield Command(N_("Providers"), N_("View and edit config.toml providers"), self.action_providers)
        yield Command(N_("Doctor"), N_("Diagnose the network path, files, config and credentials"), self.action_doctor)

    def _sign_in_to(self, region: str) -> Callable[[], None]:
        return lambda: self.action_sign_in(region)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in self.commands(screen):
            yield SystemCommand(command.name, command.said_help, command.run)

    def action_command_palette(self) -> None:
        if self.use_command_palette and not CommandPalette.is_open(self):
            self.push_screen(CommandPalette(id="--command-palette", placeholder=_(PLACEHOLDER)))
