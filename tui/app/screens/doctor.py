"""Doctor: the same checks as `assistant-auth doctor`, live, with a repair key per finding."""

from __future__ import annotations

import pathlib

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Header, LoadingIndicator

from tui.app.host import AppScreen
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.waiting import WaitsInAWorker, stopped_line
from tui.app.widgets.fitted_table import FittedTable, doctor_columns
from tui.app.widgets.footer import AppFooter
from tui.app.widgets.safe import PlainStatic
from tui.core.doctor import apply_repair, exit_code, run_doctor
from tui.core.doctor.report import first_to_look_at, status_label, summary
from tui.core.text.i18n import _
from tui.core.text.phrase import N_, said
from tui.core.text.untrusted import one_line
from tui.terminal.text import tilde

CHECK_WIDTH = 24  # cells of a check's name in the table: the finding gets the rest (the details pane shows all)


class DoctorScreen(WaitsInAWorker, AppScreen[None]):
    NOTICE_LINE = "#doctor-notice"
    CSS_PATH = str(pathlib.Path(__file__).with_name("doctor.tcss"))  # loaded when first opened
    BINDINGS = [
        Binding("escape", "back", N_("Back")),  # first: the footer keeps it at any width
        Binding("f", "fix", N_("Repair")),
        Binding("r", "rerun", N_("Check again")),
        Binding("o", "toggle_offline", N_("Offline on/off")),
    ]

    def __init__(self, offline: bool = False) -> None:
        super().__init__()
        self.checks: list = []
        self.offline = offline

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="doctor"):
            yield PlainStatic("", id="doctor-progress")
            yield PlainStatic("", id="doctor-notice", classes="none")  # a repair's wait for a lock
            yield LoadingIndicator(id="doctor-loading")
            yield FittedTable(doctor_columns, id="doctor-checks")  # laid out for the pane
            with VerticalScroll(id="doctor-details", can_focus=False):
                yield PlainStatic("", id="doctor-detail")
        yield AppFooter()

    def on_mount(self) -> None:
        self.sub_title = _("doctor")
        table = self.query_one("#doctor-checks", FittedTable)
        table.show([])
        table.focus()
        self.run_checks()

    # -- the worker: the core runs every check; network stages in threads ------------------------
    @work(exclusive=True, group="doctor")
    async def run_checks(self) -> None:
        self.query_one("#doctor-loading").display = True
        progress = self.query_one("#doctor-progress", PlainStatic)
        checks = await run_doctor(offline=self.offline, progress=progress.set_text)
        if not self.is_attached:  # the person left before the checks ended
            return
        self.checks = checks
        self.query_one("#doctor-loading").display = False
        failed = exit_code(checks) != 0
        warned = any(c.status == "warn" for c in checks)
        parts = [summary(checks)]
        if self.offline:
            parts.append(_("network skipped (o)"))
        line = " · ".join(parts)
        if failed or warned:
            line = _("{summary} — select a finding; f repairs it when a safe repair exists").format(summary=line)
        progress.set_text(line)
        self.fill()

    def fill(self) -> None:
        rows = [
            (str(index), [status_label(check.status), one_line(check.label, CHECK_WIDTH), tilde(said(check.finding))])
            for index, check in enumerate(self.checks)
        ]
        table = self.query_one("#doctor-checks", FittedTable)
        table.show(rows, cursor=first_to_look_at(self.checks))  # f repairs what the header points at
        self.show_detail()
        self.refresh_bindings()

    @property
    def selected(self):
        if not self.checks:
            return None
        row = self.query_one("#doctor-checks", DataTable).cursor_row or 0
        return self.checks[min(max(row, 0), len(self.checks) - 1)]

    def show_detail(self) -> None:
        check = self.selected
        detail = self.query_one("#doctor-detail", PlainStatic)
        if check is None:
            detail.set_text("")
            return
        lines = [f"{status_label(check.status)}  {check.label}", said(check.finding)]
        if check.fix:
            lines.append(_("Fix: {fix}").format(fix=said(check.fix)))
        if check.repair is not None and not check.repaired:
            lines.append(_("Press f to repair: {change}").format(change=said(check.repair.change)))
        if check.repaired:
            lines.append(_("Repaired: {what}").format(what=said(one_line(check.repaired, 1000))))
        if check.repair_failed:
            lines.append(_("Not repaired: {why}").format(why=said(one_line(check.repair_failed, 1000))))
        timing = check.details.get("ms")
        if timing is not None:
            lines.append(_("Took {ms} ms").format(ms=timing))
        detail.set_text(tilde("\n".join(lines)))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`f Repair` is offered only on a finding that has a repair not yet made."""
        if action == "fix":
            check = self.selected
            return check is not None and check.repair is not None and not check.repaired
        return True

    # -- actions ---------------------------------------------------------------------------------
    def action_fix(self) -> None:
        check = self.selected
        if check is None or check.repair is None or check.repaired:
            self.notify(_("No safe repair for this finding: its fix line says what to do."), timeout=6, markup=False)
            return

        def done(_outcome: object) -> None:  # apply_repair never raises: what happened is on the check
            if not self.is_attached:
                return
            stopped = stopped_line(check.repair_failed)
            if stopped:  # Esc stopped the wait: nothing changed, the finding stays as it was
                check.repair_failed = None
                self.notify(stopped, title=_("Not repaired"), severity="warning", timeout=8, markup=False)
            elif check.repaired:
                self.notify(said(one_line(check.repaired, 1000)), title=_("Repaired"), timeout=6, markup=False)
                self.run_checks()  # and check again
            else:
                self.notify(
                    said(one_line(check.repair_failed, 1000)),
                    title=_("Not repaired"),
                    severity="error",
                    timeout=8,
                    markup=False,
                )
                self.show_detail()

        def answer(yes: bool | None) -> None:
            if yes:  # in a worker: a repair may wait for a slot's or config.toml's lock
                self.start_change(lambda: apply_repair(check), done)

        change = tilde(said(check.repair.change))
        preview = check.repair.preview
        question = ConfirmScreen(
            _("Repair {check}?").format(check=check.label),
            f"{change}\n\n{preview}" if preview else change,
            yes=_("Repair"),
            lexer="diff" if preview else None,
        )
        self.app.push_screen(question, answer)

    def action_rerun(self) -> None:
        self.run_checks()

    def action_toggle_offline(self) -> None:
        self.offline = not self.offline
        self.notify(_("Network checks off.") if self.offline else _("Network checks on."), timeout=4, markup=False)
        self.run_checks()

    def action_back(self) -> None:
        if self.stop_waiting():  # Esc while a repair waits for a lock: it stops waiting, first
            return
        self.workers.cancel_group(self, "doctor")
        self.host.back()
