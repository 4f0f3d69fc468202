"""Home: the default slot's state and the region choice."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Header, OptionList, Static
from textual.widgets.option_list import Option

from tui.app.host import AppScreen
from tui.app.widgets.footer import AppFooter
from tui.app.widgets.safe import PlainStatic, plain
from tui.core.agent.client.presence import agent_line, agent_socket
from tui.core.hints import placeholders
from tui.core.humantime import clock, relative
from tui.core.i18n import _
from tui.core.keys import DEFAULT_ACCOUNT, account_slot
from tui.core.overview import Overview, away_text, overview
from tui.core.phrase import N_
from tui.core.regions import Region, endpoints
from tui.core.signin import ondisk
from tui.core.slots.state import MISSING, REVOKED, VALID, SlotStatus
from tui.core.untrusted import one_line

if TYPE_CHECKING:  # the sign-in's record loads only where one is on disk (ondisk)
    from tui.core.signin.record import Record

ACCOUNT_ROW = "account:"  # the id of a named account's row: account:<region>:<name>
HOME_IDENTITY = 20  # characters of an identity on Home, so a slot's line fits 60 columns (the inspector has it all)


def slot_line(status: SlotStatus, now: float | None = None) -> str:
    """One slot in a sentence: who is signed in and until when, or what is wrong."""
    if status.state == MISSING:
        return _("Not signed in")
    if status.state == REVOKED:
        return _("Signed out (revoked) by the official client: sign in again")
    if status.has_expiry:
        name = one_line(status.identity, HOME_IDENTITY) if status.identity else None
        who = _("Signed in as {who}").format(who=name) if name else _("Signed in")
        if status.state == VALID:  # relative: the line fits 60 columns; the inspector has the date
            left = status.expires_in(now)
            if left is None:
                return (
                    _("{who} · no expiry; refresh rejected") if status.refresh_rejected else _("{who} · no expiry")
                ).format(who=who)
            line = (
                _("{who} · expires {when}; refresh rejected")
                if status.refresh_rejected
                else _("{who} · expires {when}")
            )
            return line.format(who=who, when=relative(left))
        if status.refresh_rejected:
            return _("{who} · refresh rejected: sign in again").format(who=who)
        if status.has_refresh_token:
            return _("{who} · token expired, refreshes on next use").format(who=who)
        return _("{who} · expired, no refresh token: sign in again").format(who=who)
    return _("{state}: {detail}").format(state=status.label, detail=one_line(status.detail_text, 50))


def home_summary(view: Overview) -> tuple[str, str, Region | None]:
    """(text, css class, managed region): every region's slot and any other slot on disk, the
    one the managed provider uses marked with *."""
    ordered = view.with_regions()
    labels = [status.title(24) for status in ordered]
    width = max([7] + [len(label) for label in labels])
    lines = []
    for status, label in zip(ordered, labels, strict=True):
        marker = "*" if status.name == view.managed else "\u00a0"  # a plain space would be trimmed
        lines.append(f"{marker} {label:<{width}} {slot_line(status, view.now)}")
    if any(status.name == view.managed for status in ordered):
        lines.append(_("* used by the managed provider and by assistant-auth token"))
    if view.dangling is not None:  # the active account was signed out, and nothing else could take its place
        where, name = view.dangling
        lines.append(
            _(
                "Account {name} ({region}), which the managed provider names, is signed out: sign in to it again "
                "(`assistant-auth login --account {name} --region {region}`) or switch to another account."
            ).format(name=name, region=where)
        )
    for record in view.waiting:  # a sign-in of another terminal, or of one that went away
        left = clock(max(record.deadline - time.time(), 0))
        text = (
            _("A {region} sign-in waits for approval ({left} left): Enter follows it, n abandons it.")
            if record.polled
            else _("A {region} sign-in has nobody polling it ({left} left): Enter resumes it, n abandons it.")
        )
        lines.append(text.format(region=record.region.value, left=left))
    lines.extend(away_text(record) for record in view.away)
    current = next((s for s in ordered if s.name == view.managed), ordered[0])
    if current.usable:
        css = "valid" if current.state == VALID else "expired"
    elif current.state == MISSING:
        css = "missing"
    else:
        css = "broken"
    region = Region(current.region) if view.managed is not None and current.region else None
    return "\n".join(lines), css, region


def abandon_question(region: Region):
    """`n` on Home: the waiting sign-in's code stops being polled."""
    from tui.app.screens.confirm import ConfirmScreen  # lazy: the wizard's cold start

    return ConfirmScreen(
        _("Abandon the waiting {region} sign-in?").format(region=region.value),
        _("Its code stops being polled; a new sign-in gets a new code."),
        yes=_("Abandon"),
        no=_("Keep it"),
    )


def account_options(view: Overview | None) -> list[Option]:
    """A row per named account (the regions' own are the rows above): who is signed in, * active."""
    rows = []
    for account in view.accounts if view is not None else ():
        if account.name == DEFAULT_ACCOUNT:
            continue
        who = one_line(account.status.identity, HOME_IDENTITY) if account.status.identity else account.status.label
        if account.active:
            who = _("{who} · in use").format(who=who)
        label = f"{account.label:<14} {who}"
        rows.append(Option(plain(label), id=f"{ACCOUNT_ROW}{account.region.value}:{account.name}"))
    return rows


def prompt(view: Overview | None) -> str:
    """What the list below offers: the regions, and the named accounts once there is one."""
    if view is not None and any(account.name != DEFAULT_ACCOUNT for account in view.accounts):
        return _("Choose a region, or one of your accounts:")
    return _("Choose the region of your account:")


class HomeScreen(AppScreen[None]):
    BINDINGS = [
        Binding("enter", "start", N_("Sign in"), priority=True),
        Binding("q", "app.request_quit", N_("Quit")),  # early: the footer keeps it at any width
        Binding("w", "switch", N_("Switch to it")),
        Binding("i", "app.inspect", N_("Credentials")),
        Binding("p", "app.providers", N_("Providers")),
        Binding("d", "app.doctor", N_("Doctor")),
        Binding("n", "abandon", N_("Abandon waiting sign-in")),
        Binding("a", "agent", N_("Token agent")),  # offered where ASSISTANT_AUTH_SOCK is set
    ]

    def __init__(self, region: Region | None = None) -> None:
        super().__init__()
        self.initial_region = region  # an explicit --region; None: the managed provider's region
        self.view: Overview | None = None  # the slots as last read (every 5 s, and on return)
        self.managed_region: Region | None = None  # the managed provider's region, as first read
        self.first_resume = True

    def compose(self) -> ComposeResult:
        # the first frame is drawn complete: the slots are read here, once, so no widget is drawn
        # empty and then filled (a second style pass and layout before the first frame)
        self.view = overview()
        text, state, self.managed_region = home_summary(self.view)
        yield Header()
        with Vertical(id="home"):
            yield Static(_("Your coding-assistant accounts"), id="title")
            yield PlainStatic(text, id="slot", classes=state)
            yield Static(prompt(self.view), id="choose", classes="prompt")
            yield OptionList(*self._options(), id="regions")
            yield Static(
                _("Enter signs in to the highlighted region or account, w switches to its existing sign-in."),
                classes="hint",
            )
            if agent_socket() is not None:  # said once the agent answers (a worker: never on the first frame)
                yield PlainStatic("", id="agent-line", classes="hint")
        yield AppFooter()

    def _options(self) -> list[Option]:
        options = []
        unset = dict(placeholders())
        for region in (Region.CN, Region.GLOBAL):
            host = endpoints(region).oauth_host
            if region.value in unset:  # said before Enter, in words that fit 60 columns
                label = f"{region.value:<7} " + _("placeholder: set {variable}").format(variable=unset[region.value])
            else:
                label = f"{region.value:<7} {host}" + ("   " + _("(default)") if region is Region.CN else "")
            options.append(Option(plain(one_line(label)), id=region.value))  # hosts come from the environment
        return options + account_options(self.view)

    def _rows_changed(self) -> None:
        """The named accounts changed on disk (a sign-in, a switch, a logout): the rows follow,
        the highlighted one kept where it still is."""
        regions = self.query_one("#regions", OptionList)
        wanted = account_options(self.view)
        now = [regions.get_option_at_index(i) for i in range(2, regions.option_count)]
        if [(o.id, str(o.prompt)) for o in now] == [(o.id, str(o.prompt)) for o in wanted]:
            return
        kept = self.selected_row
        for option in now:
            regions.remove_option(option.id or "")
        regions.add_options(wanted)
        self.query_one("#choose", Static).update(prompt(self.view))
        ids = [regions.get_option_at_index(i).id for i in range(regions.option_count)]
        regions.highlighted = ids.index(kept) if kept in ids else 0

    def on_mount(self) -> None:
        self.sub_title = _("home")
        regions = self.query_one("#regions", OptionList)
        # the highlighted region: an explicit --region, else the managed provider's
        region = self.initial_region or self.managed_region or Region.CN
        regions.highlighted = 0 if region is Region.CN else 1
        regions.focus()
        self.set_interval(5, self.refresh_slot)
        if agent_socket() is not None:
            self.look_at_the_agent()

    @work(thread=True, exclusive=True, group="home-agent")
    def look_at_the_agent(self) -> None:
        line = agent_line()
        self.app.call_from_thread(self.query_one("#agent-line", PlainStatic).set_text, line)

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

    def refresh_slot(self) -> None:
        """Read the slots again and redraw them."""
        self.view = overview()
        text, state, _region = home_summary(self.view)
        self._rows_changed()
        slot = self.query_one("#slot", PlainStatic)
        slot.set_text(text)
        slot.set_classes(state)
        self._seen()
        self.refresh_bindings()

    def _seen(self) -> None:
        for record in self.view.away if self.view is not None else ():  # shown on a terminal: seen
            ondisk.seen(record.region)

    def waiting_record(self, region: Region) -> Record | None:
        return ondisk.waiting_in(region)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "abandon":  # offered only while the highlighted region has a waiting sign-in
            return self.view is not None and any(r.region is self.selected_region for r in self.view.waiting)
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
        if self.waiting_record(region) is None:
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
    def selected_row(self) -> str:
        """The highlighted row's id: "cn", "global" or "account:<region>:<name>"."""
        regions = self.query_one("#regions", OptionList)
        index = regions.highlighted or 0
        return regions.get_option_at_index(min(index, regions.option_count - 1)).id or "cn"

    @property
    def selected_region(self) -> Region:
        row = self.selected_row.removeprefix(ACCOUNT_ROW)
        return Region.GLOBAL if row.split(":")[0] == "global" else Region.CN

    @property
    def selected_account(self) -> str | None:
        """The named account of the highlighted row (None: a region's row, its own account)."""
        row = self.selected_row
        return row.split(":", 2)[2] if row.startswith(ACCOUNT_ROW) else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_start()

    def action_switch(self) -> None:
        """Point the managed provider at the highlighted row's sign-in (no new sign-in)."""
        self.host.switch_managed(self.selected_region, self.selected_account)
        self.refresh_slot()

    def action_start(self) -> None:
        """Sign in to the highlighted region or account. Where the region has an account already,
        ask first: another account (a name) or this one again; a named account's row: again?"""
        region, account = self.selected_region, self.selected_account
        if self.waiting_record(region) is not None:  # the sign-in joins it: the same code, no new request
            self.host.action_sign_in(region.value)
            return
        view = overview()  # now: the person may have waited on this screen
        if account is not None:
            self._again(region, account, view.slot(account_slot(region, account)))
            return
        status = view.region_slot(region)
        named = {a.name for a in view.accounts if a.region is region and a.name != DEFAULT_ACCOUNT}
        if status.refresh_rejected or not (status.usable or named):
            self._again(region, None, status)
            return
        from tui.app.screens.account_choice import ADD, AccountChoiceScreen  # lazy: the wizard's cold start

        def chosen(answer: tuple[str, str | None] | None) -> None:
            if answer is not None:
                self.host.action_sign_in(region.value, account=answer[1] if answer[0] == ADD else None)

        self.app.push_screen(
            AccountChoiceScreen(
                _("{region} has an account already: add another, or sign in again?").format(region=region.value),
                slot_line(status),
                named,
            ),
            chosen,
        )

    def _again(self, region: Region, account: str | None, status: SlotStatus) -> None:
        """Sign in to one account (a region's own when `account` is None): at once when its session
        does not work, else after asking (its refresh rejected: signing in is the default)."""
        from tui.app.screens.confirm import ConfirmScreen  # lazy: the wizard's cold start

        def go(yes: bool | None = True) -> None:
            if yes:
                self.host.action_sign_in(region.value, account=account)

        if not status.usable:
            go()
            return
        name = f"{account} ({region.value})" if account else region.value
        if status.refresh_rejected:  # it works until it expires, then not: signing in is the default
            body = _(
                "{state}.\nThe server rejected its refresh token: when the access token expires it stops "
                "working. Sign in again now (`assistant-auth login` on the command line)."
            )
            title, no, default_yes = _("Sign in to {region} again?"), _("Later"), True
        else:
            body = _(
                "{state}.\nIt still works: a new sign-in is not needed. Signing in again replaces its tokens, "
                "for the official client too."
            )
            title, no, default_yes = _("Replace your {region} sign-in?"), _("Keep it"), False
        self.app.push_screen(
            ConfirmScreen(
                title.format(region=name),
                body.format(state=slot_line(status)),
                yes=_("Sign in again"),
                no=no,
                default_yes=default_yes,
            ),
            go,
        )
