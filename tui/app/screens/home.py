"""Home: the default slot's state and the region choice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from tui.app.host import AppScreen
from tui.app.screens.home_start import StartsSignIns
from tui.app.screens.home_text import (
    abandon_question,
    account_options,
    home_summary,
    prompt,
    region_options,
)
from tui.app.screens.waiting import WaitsInAWorker
from tui.app.widgets.account_rows import AccountRows
from tui.app.widgets.footer import AppFooter
from tui.app.widgets.safe import PlainStatic
from tui.core.agent.client.presence import agent_line, agent_socket, look
from tui.core.agent.served import Served
from tui.core.person.overview import Overview, away_text, overview
from tui.core.signin import ondisk
from tui.core.spec.keys import DEFAULT_ACCOUNT, account_slot
from tui.core.spec.regions import Region
from tui.core.text.i18n import _
from tui.core.text.phrase import N_
from tui.terminal.text import tilde

if TYPE_CHECKING:  # the sign-in's record loads only where one is on disk (ondisk)
    pass


class HomeScreen(StartsSignIns, WaitsInAWorker, AppScreen[None]):
    NOTICE_LINE = "#home-notice"
    BINDINGS = [
        Binding("enter", "start", N_("Sign in"), priority=True),
        Binding("q", "app.request_quit", N_("Quit")),  # early: the footer keeps it at any width
        Binding("w", "switch", N_("Switch to it")),
        Binding("i", "app.inspect", N_("Credentials")),
        Binding("p", "app.providers", N_("Providers")),
        Binding("d", "app.doctor", N_("Doctor")),
        Binding("n", "abandon", N_("Abandon waiting sign-in")),
        Binding("a", "agent", N_("Token agent")),  # offered where ASSISTANT_AUTH_SOCK is set
        Binding("escape", "stop_wait", N_("Stop waiting")),  # offered while a switch waits for a lock
    ]

    def __init__(self, region: Region | None = None) -> None:
        super().__init__()
        self.initial_region = region  # an explicit --region; None: the managed provider's region
        self.view: Overview | None = None  # the slots as last read (every 5 s, and on return)
        self.managed_region: Region | None = None  # the managed provider's region, as first read
        self.first_resume = True
        self.fitted_to = 0  # the screen width the rows were last fitted to
        self.away_kept: dict[str, None] = {}  # "while you were away…": shown until the person moves on
        self.agent_found: Served | None = None  # where tokens come from, once the worker looked

    def compose(self) -> ComposeResult:
        # the first frame is drawn complete: the slots are read here, once, so no widget is drawn
        # empty and then filled (a second style pass and layout before the first frame)
        self.view = overview()
        text, state, self.managed_region = home_summary(self.view, columns=self._columns("#slot"))
        yield Header()
        with Vertical(id="home"):
            yield Static(_("Your coding-assistant accounts"), id="title")
            yield PlainStatic(text, id="slot", classes=state)
            yield Static(prompt(self.view), id="choose", classes="prompt")
            yield AccountRows(*self._options(), id="regions")
            yield Static(
                _("Enter signs in to the highlighted region or account, w switches to its existing sign-in."),
                classes="hint",
            )
            yield PlainStatic("", id="home-notice", classes="hint none")  # a switch's wait for a lock
            if agent_socket() is not None:  # said once the agent answers (a worker: never on the first frame)
                yield PlainStatic("", id="agent-line", classes="hint")
            # below what Home is for (the accounts, the list, the agent), in the room left, scrolled when
            # long: what `status` warns of (files others can read, a home of another owner, config.toml):
            # the first frame says what needs no TOML parser, the rest follows right after it
            notices = self.view.file_notices()
            yield PlainStatic(tilde("\n".join(notices)), id="notices", classes="" if notices else "none")
        yield AppFooter()

    def _options(self) -> list[Option]:
        return region_options(self._columns("#regions")) + account_options(self.view, self._columns("#regions"))

    def _columns(self, where: str) -> int:
        """Cells a row of `where` has: measured once laid out, else (the first frame) estimated."""
        widget = self.query(where).first() if self.query(where) else None
        width = widget.content_region.width if widget is not None else 0
        return (width or self.app.size.width - 8) - 1  # one spare: a scroll bar may take it

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self.fitted_to:  # a new width only: a refit that lays out again must not loop
            self.fitted_to = event.size.width
            self.call_after_refresh(self.refresh_slot, False)  # the same reading, fitted once laid out anew

    def _rows_changed(self) -> None:
        """The named accounts changed on disk (a sign-in, a switch, a logout), or the width did:
        the rows follow, the highlighted one kept where it still is."""
        if self.rows.show(self._options()):
            self.query_one("#choose", Static).update(prompt(self.view))

    @property
    def rows(self) -> AccountRows:
        return self.query_one("#regions", AccountRows)

    def on_mount(self) -> None:
        self.sub_title = _("home")
        regions = self.query_one("#regions", OptionList)
        # the highlighted region: an explicit --region, else the managed provider's
        region = self.initial_region or self.managed_region or Region.CN
        regions.highlighted = list(Region).index(region)  # the region rows come first, in Region's order
        active = self._active_row()
        if self.initial_region is None and active is not None:  # the active account's row, scrolled into view
            regions.highlighted = active
        regions.focus()
        self.set_interval(5, self.refresh_slot)
        self.call_after_refresh(self._show_notices)
        if agent_socket() is not None:
            self.look_at_the_agent()

    def _active_row(self) -> int | None:
        """The row of the active account when it is a named one, else None."""
        active = next((a for a in self.view.accounts if a.active), None) if self.view is not None else None
        if active is None or active.name == DEFAULT_ACCOUNT:
            return None
        return self.rows.account_row(active.region, active.name)

    @work(thread=True, exclusive=True, group="home-agent")
    def look_at_the_agent(self) -> None:
        found = look()
        self.app.call_from_thread(self._agent_looked, found, agent_line(found))

    def _agent_looked(self, found: Served, line: str) -> None:
        self.agent_found = found
        self.query_one("#agent-line", PlainStatic).set_text(line)

    def action_agent(self) -> None:
        path = agent_socket()
        if path is None:
            return
        from tui.app.screens.agent import AgentScreen  # lazy: the wizard's cold start
        from tui.core.agent.feed import RemoteFeed  # lazy: the agent's server (asyncio), not for Home's frame

        self.app.push_screen(AgentScreen(RemoteFeed(path), in_process=False))

    def on_screen_resume(self) -> None:
        """Shown: the first time, the slots were read for the first frame (compose) and the
        sign-ins that ended away are now seen; back from another screen, they are read again."""
        if self.first_resume:
            self.first_resume = False
            self._seen()
        else:
            self.refresh_slot()

    def _show_notices(self) -> None:
        """Every warning `status` prints, from the same reading (config.toml parsed now)."""
        if self.view is None:
            return
        notices = self.view.notices()
        shown = self.query_one("#notices", PlainStatic)
        shown.set_text(tilde("\n".join(notices)))  # paths from ~, as every screen shows them
        shown.set_class(not notices, "none")

    def refresh_slot(self, read: bool = True) -> None:
        """Read the slots again (`read`) and redraw them."""
        self.view = overview() if read or self.view is None else self.view
        text, state, _region = home_summary(self.view, self.away_kept, self._columns("#slot"))
        self._rows_changed()
        slot = self.query_one("#slot", PlainStatic)
        slot.set_text(text)
        slot.set_classes(state)
        self._show_notices()
        self._seen()
        self.refresh_bindings()

    def _seen(self) -> None:
        for record in self.view.away if self.view is not None else ():  # shown on a terminal: seen, kept on screen
            self.away_kept[away_text(record)] = None
            ondisk.seen(record.region)

    def on_screen_suspend(self) -> None:
        self.away_kept = {}  # the person moved on: said, seen

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "abandon":  # offered only while the highlighted region has a waiting sign-in
            return self.view is not None and any(r.region is self.selected_region for r in self.view.waiting)
        if action == "stop_wait":  # offered only while a switch waits for a lock
            return self.change_stop is not None
        if action == "agent":  # offered only where a token agent is pointed at
            return agent_socket() is not None
        if action == "switch":  # offered only where the highlighted row has a usable sign-in not in use yet
            if self.view is None:
                return False
            slot = account_slot(self.selected_region, self.selected_account or DEFAULT_ACCOUNT)
            return slot != self.view.managed and self.view.slot(slot).usable
        return True

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.refresh_bindings()  # what `w` and `n` can do depends on the highlighted row

    def action_abandon(self) -> None:
        region = self.selected_region
        if ondisk.waiting_in(region) is None:
            return

        def answer(yes: bool | None) -> None:
            if yes:
                ondisk.abandon(region)
                self.app.notify(
                    _("Abandoned the {region} sign-in that waited for approval.").format(region=region.value),
                    markup=False,
                )
                self.set_timer(0.5, self.refresh_slot)

        self.app.push_screen(abandon_question(region), answer)

    @property
    def selected_region(self) -> Region:
        return self.rows.selected_region

    @property
    def selected_account(self) -> str | None:
        """The named account of the highlighted row (None: a region's row, its own account)."""
        return self.rows.selected_account

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_start()

    def action_switch(self) -> None:
        """Point the managed provider at the highlighted row's sign-in (no new sign-in), in a
        worker: config.toml's lock may wait; the wait is said here and Esc stops it."""
        from tui.core.slots.switch import switch_account  # lazy: only when a switch is asked for, not at start

        region, account = self.selected_region, self.selected_account or DEFAULT_ACCOUNT

        def done(outcome: object) -> None:
            self.host.switched(outcome)  # the toast: switched, or why not
            if self.is_attached:
                self.refresh_slot()

        self.start_change(lambda: switch_account(region, account), done)
