"""Credential inspector: every slot, its state and a masked view; repairs with confirmation."""

from __future__ import annotations

import pathlib
import time

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Header

from tui.app.host import AppScreen
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.waiting import WaitsInAWorker, trouble_line
from tui.app.widgets.footer import AppFooter
from tui.app.widgets.safe import PlainStatic, cell
from tui.app.widgets.slot_details import SlotDetails
from tui.core.credentials.locks import reporting_to
from tui.core.credentials.refresh import refresh_access_token
from tui.core.credentials.repairs import NotDone, move_aside, seen
from tui.core.errors import AuthError
from tui.core.person.overview import Overview, overview
from tui.core.person.signout import sign_out, told
from tui.core.slots.choice import explain_for, region_for_slot, selection_for_slot
from tui.core.slots.permissions import apply_plan, permission_plan
from tui.core.slots.state import BROKEN, MISSING, SlotStatus, slot_title
from tui.core.slots.switch import switch_account
from tui.core.spec.keys import account_of_slot
from tui.core.spec.paths import config_path, credentials_dir
from tui.core.spec.regions import Region
from tui.core.text.humantime import clock, relative
from tui.core.text.i18n import _
from tui.core.text.phrase import N_, said
from tui.core.text.untrusted import one_line
from tui.terminal.text import short_path


def expires_in_text(slot: SlotStatus, now: float | None = None) -> str:
    left = slot.expires_in(now)
    if slot.expires_at is not None and slot.expires_at <= 0:
        return _("never")
    if left is None:
        return _("no expiry") if slot.has_expiry else "—"
    if abs(left) >= 86400:
        return relative(left)
    return clock(left) if left > 0 else f"-{clock(-left)}"


def disk_signature() -> tuple[tuple[str, int, int, int], ...]:
    """Changes when any credential file or config.toml changes on disk (the official CLI too).
    Hidden entries are left out: they are writes in flight (an atomic write's temp file, the room a
    refresh reserves for its answer), not changes; the rename that ends a write is seen."""
    entries = []
    try:
        for entry in sorted(credentials_dir().iterdir()):
            if entry.name.startswith("."):
                continue
            try:
                info = entry.stat()
            except OSError:
                continue
            entries.append((entry.name, info.st_mtime_ns, info.st_size, info.st_mode))
    except OSError:
        pass
    try:
        info = config_path().stat()
        entries.append(("config.toml", info.st_mtime_ns, info.st_size, info.st_mode))
    except OSError:
        pass
    return tuple(entries)


def _mode_to_fix(slot: SlotStatus) -> bool:
    """The file or a directory above it is not private (what `m` would change, seen now)."""
    return slot.mode is not None and bool(permission_plan(slot.name)[0])


def offered(action: str, slot: SlotStatus | None, managed: str | None) -> bool:
    """Offer only what the selected slot allows: an empty slot has nothing to refresh, remove,
    fix, move aside or switch to (its keys leave the footer; `s` signs in); a broken one is
    moved aside (not logged out of or switched to); `m` only where a mode is wrong; `w` only to a
    usable account's slot not in use yet."""
    applies = ACTION_APPLIES.get(action)
    if applies is None:
        return True
    if slot is None or (action == "switch" and slot.name == managed):
        return False
    return applies(slot)


ACTION_APPLIES = {
    "refresh_token": lambda slot: slot.has_expiry and slot.has_refresh_token,
    "logout": lambda slot: slot.state != MISSING and slot.state not in BROKEN,  # a broken file: x moves it aside
    "fix_mode": _mode_to_fix,
    "move_aside": lambda slot: slot.state in BROKEN,
    "switch": lambda slot: slot.usable and account_of_slot(slot.name) is not None,
}


NOT_AN_ACCOUNT = N_("Only an account's slot can be used for the managed provider: select a region's or a named one.")


class CredentialsScreen(WaitsInAWorker, AppScreen[None]):
    NOTICE_LINE = "#inspector-notice"
    CSS_PATH = str(pathlib.Path(__file__).with_name("credentials.tcss"))  # loaded when first opened
    BINDINGS = [
        Binding("escape", "back", N_("Back")),  # first: the footer keeps it at any width
        Binding("l", "logout", N_("Log out")),
        Binding("r", "refresh_token", N_("Refresh")),
        Binding("s", "sign_in", N_("Sign in")),
        Binding("w", "switch", N_("Switch")),
        Binding("m", "fix_mode", N_("Fix mode")),
        Binding("x", "move_aside", N_("Move aside")),
        Binding("d", "app.doctor", N_("Doctor")),  # as on Home
    ]

    def __init__(self, select: str | None = None) -> None:
        super().__init__()
        self.first_selected = select  # `inspect --account NAME`: the slot the cursor starts on
        self.view: Overview | None = None
        self.slots: list[SlotStatus] = []
        self.signature: tuple = ()
        self.shown_slot: str | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="inspector"):
            yield DataTable(id="slots", cursor_type="row", zebra_stripes=True)
            yield SlotDetails(id="slot-details")
            yield PlainStatic("", id="inspector-notice")
        yield AppFooter()

    def on_mount(self) -> None:
        self.sub_title = _("credentials")
        table = self.query_one("#slots", DataTable)
        # sized to their content (the table scrolls sideways when it is wider than the terminal)
        table.add_column(_("Account"), key="slot")
        table.add_column(_("State"), key="state")
        table.add_column(_("Expires in"), key="left")
        table.add_column(_("Mode"), key="mode")
        table.add_column(_("Providers"), key="providers")
        self.reload()
        table.focus()
        self.set_interval(1, self.tick)

    # -- data ---------------------------------------------------------------------------------
    def reload(self) -> None:
        self.signature = disk_signature()
        self.view = overview()  # one read of the slots and config.toml, not one per row change
        self.slots = self.view.slots
        table = self.query_one("#slots", DataTable)
        selected = self.first_selected or (self.selected.name if self.selected else None)
        self.first_selected = None  # once: then the cursor stays where the person moved it
        table.clear()
        for slot in self.slots:
            table.add_row(
                cell(slot.title(80)),
                cell(one_line(slot.label, 22)),
                cell(expires_in_text(slot)),
                cell("—" if slot.mode is None else f"{slot.mode:04o}"),
                cell(one_line(", ".join(self.view.users.get(slot.name, [])) or "—", 80)),
                key=slot.name,
            )
        if selected is not None:
            names = [s.name for s in self.slots]
            if selected in names:
                table.move_cursor(row=names.index(selected))
        self.show_details()

    @property
    def selected(self) -> SlotStatus | None:
        if not self.slots:
            return None
        table = self.query_one("#slots", DataTable)
        row = table.cursor_row if table.cursor_row is not None else 0
        return self.slots[min(max(row, 0), len(self.slots) - 1)]

    def show_details(self) -> None:
        slot = self.selected
        self.shown_slot = slot.name if slot else None
        self.query_one(SlotDetails).show(slot, self.view)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        return offered(action, self.selected, self.view.managed if self.view is not None else None)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.selected is not None and self.selected.name != self.shown_slot:
            self.notice("")  # a message about another row would mislead
        self.show_details()

    def tick(self) -> None:
        if disk_signature() != self.signature:
            self.reload()
            self.notice(_("Files changed on disk: reloaded."))
            return
        table = self.query_one("#slots", DataTable)
        now = time.time()
        for slot in self.slots:
            table.update_cell(slot.name, "left", cell(expires_in_text(slot, now)), update_width=True)

    # -- actions --------------------------------------------------------------------------------
    def _confirm(self, title: str, body: str, then) -> None:
        self.app.push_screen(ConfirmScreen(title, body), lambda answer: then() if answer else None)

    def action_refresh_token(self) -> None:
        slot = self.selected
        if slot is None or not slot.has_expiry:
            self.notice(_("Only a readable slot with tokens can be refreshed."))
            return
        self._confirm(
            _("Refresh {slot} now?").format(slot=slot.title(60)),
            _("The refresh token is used once and replaced by a new one."),
            lambda: self.run_refresh(slot.name),
        )

    @work(exclusive=True, group="refresh")
    async def run_refresh(self, name: str) -> None:
        self.notice(_("Refreshing {slot}…").format(slot=slot_title(name)))

        selection = None
        try:
            selection = selection_for_slot(name)
            with reporting_to(lambda text: self.notice(one_line(text, 1000))):
                await refresh_access_token(
                    selection.ref, selection.base_url, client=self.host.http_client, refuse=selection.refusal
                )
        except AuthError as exc:
            result = explain_for(exc, selection).said()
        else:
            result = _("Refreshed {slot}.").format(slot=slot_title(name))
        if not self.is_attached:  # the person left while the answer was being stored: nothing to show it on
            return
        # read again either way: a refresh changes the slot (a rejected one its state), and what it
        # made itself (its lock file) is no change on disk that the next tick should report over this
        self.reload()
        self.notice(result)

    def action_sign_in(self) -> None:
        name = self.selected.name if self.selected else "assistant-code"
        named = account_of_slot(name)
        account = named.name if named is not None and not named.is_default else None
        self.host.action_sign_in(region_for_slot(name).value, account=account)

    def _confirmed_change(self, title: str, body: str, operation, failure: str, success, then=None) -> None:
        """Ask, then run a change from the core; report its outcome and reload the table. A repair
        whose fact no longer holds when answered changes nothing and says so (`NotDone`)."""

        def done(result: object) -> None:  # back on the screen's loop: the change's outcome
            self.reload()
            trouble = trouble_line(result, failure)
            self.notice(trouble if trouble is not None else success(result))
            if trouble is None and then is not None:
                then()

        self._confirm(title, body, lambda: self.start_change(operation, done))  # a worker: it may wait for a lock

    def action_fix_mode(self) -> None:
        slot = self.selected
        if slot is None:
            self.notice(_("No credential slot yet: nothing to fix."))
            return
        if slot.mode is None:
            self.notice(_("{slot} has no file: nothing to fix.").format(slot=slot.title(60)))
            return
        plan, links = permission_plan(slot.name)  # seen now: the dialog shows exactly what changes
        if not plan:
            self.notice(
                "; ".join(said(link) for link in links)
                if links
                else _("{slot} and its directories are already private (0600 / 0700).").format(slot=slot.title(60))
            )
            return

        def apply() -> list[str]:
            done, not_done = apply_plan(plan)
            if not_done and not done:
                raise NotDone("; ".join(not_done))
            return [said(line) for line in done] + [
                _("not done: {change}").format(change=said(line)) for line in not_done
            ]

        self._confirmed_change(
            _("Make {slot} private?").format(slot=slot.title(60)),
            "\n".join([change.describe(short_path) for change in plan] + [said(link) for link in links]),
            apply,
            _("Could not change permissions: {reason}"),
            lambda changed: _("Permissions fixed: {changes}").format(changes="; ".join(changed)),
        )

    def action_move_aside(self) -> None:
        slot = self.selected
        if slot is None or slot.state not in BROKEN:
            self.notice(_("Only an unreadable credential file is moved aside."))
            return
        found = seen(slot.path)  # the file the dialog is about; it is moved only if still this one
        if found is None:
            self.reload()
            return
        self._confirmed_change(
            _("Move {slot} aside and sign in again?").format(slot=slot.title(60)),
            _(
                "{path}\nwill be renamed to {name}.corrupt-<timestamp> (nothing is deleted), if it still does not parse."
            ).format(path=short_path(slot.path), name=slot.path.name),
            lambda: move_aside(found, slot.name),
            _("Could not move the file: {reason}"),
            lambda result: _("{done}.").format(done=said(result)[:1].upper() + said(result)[1:]),
            then=lambda: self.host.action_sign_in(region_for_slot(slot.name).value),
        )

    def action_switch(self) -> None:
        """Point the managed provider at the selected account's slot (no new sign-in), in a worker:
        config.toml's lock may be held."""
        named = account_of_slot(self.selected.name) if self.selected else None
        if named is None:
            self.notice(_(NOT_AN_ACCOUNT))
            return

        def done(outcome: object) -> None:
            switched, message = self.host.switched(outcome)
            if switched:
                self.reload()
            self.notice(message)

        self.start_change(lambda: switch_account(Region(named.region), named.name), done)

    def action_back(self) -> None:
        if not self.stop_waiting():  # Esc while a change waits for a lock: it stops waiting, first
            self.host.back()

    def action_logout(self) -> None:
        slot = self.selected
        if slot is None or slot.state == MISSING:
            self.notice(_("Nothing to remove."))
            return
        self._confirmed_change(
            _("Log out of {slot}?").format(slot=slot.title(60)),
            _("{path} will be removed.").format(path=short_path(slot.path)),
            lambda: sign_out(slot.name),
            _("Could not remove the file: {reason}"),
            lambda result: " ".join(told(result, short_path(result.path))),
        )
