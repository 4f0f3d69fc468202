"""Provider config viewer and editor: config.toml, edited round-trip, diff before every save."""

from __future__ import annotations

import pathlib

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Header, Input

from tui.app.host import AppScreen
from tui.app.screens.confirm import ConfirmScreen
from tui.app.screens.restore import ask_to_restore
from tui.app.screens.waiting import WaitsInAWorker, stopped_line
from tui.app.widgets.fitted_table import FittedTable, provider_columns
from tui.app.widgets.footer import AppFooter
from tui.app.widgets.provider_form import FORM, ProviderForm
from tui.app.widgets.raw_config import RawConfig
from tui.app.widgets.safe import PlainStatic
from tui.core.config.edit import (
    ConfigChanged,
    Snapshot,
    edit_provider,
    fits,
    load_snapshot,
    masked_diff,
    provider_fields,
    save_snapshot,
    validate,
)
from tui.core.config.provider import list_providers
from tui.core.config.read import parse_config
from tui.core.config.restore import Restore, backup_path, restore_offer
from tui.core.config.watch import DiskWatch
from tui.core.errors import AuthError
from tui.core.text.i18n import _
from tui.core.text.phrase import N_
from tui.core.text.untrusted import clean, one_line
from tui.terminal.text import short_path


def provider_rows(doc) -> list[tuple[str, list[str]]]:
    rows = []
    for name, entry in list_providers(doc):
        fields = provider_fields(entry)
        oauth = str(fields["oauth_key"]) or (_("(derived)") if isinstance(entry.get("oauth"), dict) else "—")
        if fields["oauth_host"]:
            oauth += f" @ {fields['oauth_host']}"
        flag = lambda v: _("yes") if v else _("no")  # noqa: E731 - a one-word formatter beside its uses
        rows.append(
            (
                name,
                [
                    one_line(name, 28),
                    one_line(entry.get("type", "—"), 12),
                    one_line(fields["base_url"] or "—", 40),
                    flag(fields["enabled"]),
                    flag(fields["active"]),
                    flag(entry.get("managed") is True),
                    one_line(oauth, 50),
                ],
            )
        )
    return rows


FIX_FIELDS = N_("Fix the fields marked in red, then save again.")
MOVED_ON_DISK = N_(
    "Not saved: config.toml changed on disk since it was loaded. Press ctrl+r to reload "
    "(it asks before your edits are dropped)."
)


def read_only_text(problem: AuthError, restorable: pathlib.Path | None, *, shown: bool = True) -> str:
    """Why the file is shown read-only (`shown`: below; else not at all: it could not be read);
    with `restorable` (its path), that `b` restores its copy."""
    if shown:
        text = _("{problem}\nThe file is shown read-only below and will not be overwritten.").format(problem=problem)
    else:
        text = _("{problem}\nThe file is left as it is.").format(problem=problem)
    if restorable is None:
        return text
    backup = short_path(backup_path(restorable))
    return text + "\n" + _("b restores the last good copy ({backup}) after showing what changes.").format(backup=backup)


def reload_question(changed: list[str]) -> ConfirmScreen:
    return ConfirmScreen(
        _("Reload and drop your changes to {fields}?").format(fields=", ".join(changed)),
        _("config.toml is read again from disk; your unsaved edits are lost."),
        yes=_("Reload"),
        no=_("Keep editing"),
    )


def discard_question(changed: list[str], provider: str | None) -> ConfirmScreen:
    return ConfirmScreen(
        _("Discard changes to {fields}?").format(fields=", ".join(changed)),
        _("Your edits of {table} are not saved. ctrl+s saves them.").format(table=f'[providers."{provider}"]'),
        yes=_("Discard"),
        no=_("Keep editing"),
    )


def saved_line(outcome: object) -> str:
    """What a save says: saved (and where the previous version is), or why not."""
    if isinstance(outcome, ConfigChanged):
        return _("Not saved: {problem}. Press ctrl+r to reload.").format(problem=outcome)
    if isinstance(outcome, AuthError):
        return stopped_line(outcome) or _("Not saved: {problem}").format(problem=outcome)
    if isinstance(outcome, BaseException):
        raise outcome
    return _("Saved. Previous version kept in {backup}.").format(backup=outcome) if outcome else _("Saved.")


class ProvidersScreen(WaitsInAWorker, AppScreen[None]):
    NOTICE_LINE = "#providers-notice"
    CSS_PATH = str(pathlib.Path(__file__).with_name("providers.tcss"))  # loaded when first opened
    BINDINGS = [
        Binding("escape", "back", N_("Back")),  # first: the footer keeps it at any width
        Binding("ctrl+s", "save", N_("Save"), priority=True),
        Binding("ctrl+r", "reload", N_("Reload"), priority=True),
        Binding("f2", "toggle_raw", N_("File on disk")),
        Binding("b", "restore_backup", N_("Restore last good copy")),  # offered only for a file that does not parse
    ]

    def __init__(self) -> None:
        super().__init__()
        self.snapshot: Snapshot | None = None
        self.names: list[str] = []
        self.current: str | None = None
        self.loaded_values: dict[str, object] = {}
        self.doc = None
        self.notice_text = ""
        self.disk = DiskWatch()  # whether config.toml moved since it was loaded, and if that was said
        self.restore: Restore | None = None  # config.toml does not parse and its .bak does: `b` offers it

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="providers"):
            yield PlainStatic("", id="config-problem")
            yield FittedTable(provider_columns, id="provider-table")  # its columns laid out for the pane
            # the form scrolls with the mouse, but Tab goes straight to its first field
            yield ProviderForm(id="provider-form")
            yield RawConfig(id="raw-view")
            yield PlainStatic("", id="providers-notice")
        yield AppFooter()

    def on_mount(self) -> None:
        self.sub_title = _("providers · config.toml")
        self.query_one("#raw-view").display = False
        self.load()
        self.set_interval(2, self.watch_disk)

    # -- loading ----------------------------------------------------------------------------------
    def load(self) -> None:
        table = self.query_one("#provider-table", FittedTable)
        table.show([])
        self.names = []
        self.doc = None
        self.restore = None
        try:
            self.snapshot = load_snapshot()
        except AuthError as exc:  # too large, not UTF-8, a FIFO: the copy is offered where one exists
            self.snapshot, self.restore = None, restore_offer()
            self._show_problem(read_only_text(exc, self.restore.path if self.restore else None, shown=False))
            return
        if self.snapshot.raw is None:
            self._show_problem(
                _("No config.toml yet at {path}; signing in creates it.").format(path=short_path(self.snapshot.path))
            )
            return
        try:
            self.doc = parse_config(self.snapshot.text)
            rows = provider_rows(self.doc)
        except AuthError as exc:
            self.restore = restore_offer(self.snapshot.path)
            self._show_problem(read_only_text(exc, self.snapshot.path if self.restore else None))
            self._show_raw(True)
            return
        self.refresh_bindings()
        self.query_one("#config-problem").display = False
        self.names = [name for name, _cells in rows]
        self.query_one("#provider-form").display = bool(self.names)
        if not self.names:
            self._show_problem(_("{path} has no providers yet.").format(path=short_path(self.snapshot.path)))
        else:
            keep = self.current if self.current in self.names else self.names[0]
            table.show(rows, cursor=self.names.index(keep))
            self.fill_form(keep)
        if self.query_one("#raw-view").display:
            self._show_raw(True)

    def _show_problem(self, text: str) -> None:
        problem = self.query_one("#config-problem", PlainStatic)
        problem.set_text(text)
        problem.display = True
        self.query_one("#provider-form").display = False
        self.refresh_bindings()  # what the footer offers follows what was loaded

    def fill_form(self, name: str) -> None:
        entry = dict(list_providers(self.doc)).get(name)
        if entry is None:
            return
        self.current = name
        # values as shown: control characters from the file are made visible (U+FFFD), so an
        # untouched field compares equal and is never rewritten
        self.loaded_values = {
            k: clean(v, keep_newlines=False) if isinstance(v, str) else v for k, v in provider_fields(entry).items()
        }
        self.form.show(f'[providers."{name}"]', self.loaded_values, managed=entry.get("managed") is True)

    @property
    def form(self) -> ProviderForm:
        return self.query_one("#provider-form", ProviderForm)

    def changes(self) -> dict[str, object]:
        return {k: v for k, v in self.form.values().items() if self.loaded_values.get(k) != v}

    # -- events -----------------------------------------------------------------------------------
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value == self.current:
            return
        if self.changes():
            self.notice(_("Unsaved edits were discarded when switching provider."))
        self.fill_form(str(event.row_key.value))

    def on_input_changed(self, event: Input.Changed) -> None:
        """After the form has validated the field (it handles the event first)."""
        if not self.form.any_invalid and self.notice_text == _(FIX_FIELDS):
            self.notice("")  # fixed: the request to fix them goes too

    def watch_disk(self) -> None:
        now = self.disk.unseen(self.snapshot) if self.snapshot is not None else None
        if now is None:
            return  # unchanged, or this change was already said (a later notice is not overwritten)
        if self.changes():
            self.disk.tell(now)
            self.notice(
                _("config.toml changed on disk. Save is refused until you reload (ctrl+r); your edits would be lost.")
            )
        else:
            self.load()
            self.notice(_("config.toml changed on disk: reloaded."))

    def notice(self, text: str) -> None:
        self.notice_text = text
        super().notice(text)

    def said_change_on_disk(self) -> None:
        """The change on disk as it is now has been told to the person."""
        if self.snapshot is not None:
            self.disk.told_now(self.snapshot)

    # -- actions -----------------------------------------------------------------------------------
    def action_save(self) -> None:
        if self.snapshot is None or self.doc is None or self.current is None:
            self.notice(_("Nothing to save: the file could not be read."))
            return
        changes = self.changes()
        first = self.form.first_invalid({f: validate(f, v) for f, v in changes.items()})
        if first is not None:
            self.notice(_(FIX_FIELDS))
            first.focus()  # the first one in view, with the cursor in it
            first.scroll_visible(animate=False)
            return
        if not changes:
            self.notice(_("Nothing changed."))
            return
        if DiskWatch.moved(self.snapshot):  # refused before the question: a yes could not be honoured
            self.said_change_on_disk()
            self.notice(_(MOVED_ON_DISK))
            return
        try:
            new_text = edit_provider(self.snapshot.text, self.current, changes)
            fits(new_text)  # refused before the question: a yes could not be honoured
        except AuthError as exc:
            self.notice(str(exc))
            return
        diff = masked_diff(self.snapshot.text, new_text)
        snapshot = self.snapshot

        def answer(ok: bool | None) -> None:
            if ok:
                self.write(snapshot, new_text)

        title = _("Write these changes to {path}?").format(path=short_path(snapshot.path))
        self.app.push_screen(ConfirmScreen(title, diff, yes=_("Write"), lexer="diff"), answer)

    def write(self, snapshot: Snapshot, new_text: str) -> None:
        def done(outcome: object) -> None:  # back on the screen's loop
            if isinstance(outcome, ConfigChanged):
                self.said_change_on_disk()  # this notice says it: the disk watcher does not repeat it
            elif not isinstance(outcome, BaseException):
                self.load()
            self.notice(saved_line(outcome))

        self.start_change(lambda: save_snapshot(snapshot, new_text), done)  # a worker: config.toml's lock may wait

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # `b` only for a file it can mend, ^s only for a file the form edits
        return {"restore_backup": self.restore is not None, "save": self.doc is not None}.get(action, True)

    def action_restore_backup(self) -> None:  # the repair doctor offers too: a diff, a question, a re-check
        def done(said_line: str | None) -> None:
            self.load()
            self.notice(said_line or _("Nothing to restore: config.toml or its copy changed."))

        ask_to_restore(self.app, self.snapshot.path if self.snapshot else None, done, run=self.start_change)

    def action_reload(self) -> None:
        changed = self.changed_labels()
        if not changed:
            self.load()
            self.notice(_("Reloaded from disk."))
            return

        def reload(discard: bool | None) -> None:
            if discard:
                self.load()
                self.notice(_("Reloaded from disk; your edits were dropped."))

        self.app.push_screen(reload_question(changed), reload)

    def action_toggle_raw(self) -> None:
        self._show_raw(not self.query_one("#raw-view").display)

    def _show_raw(self, show: bool) -> None:
        raw = self.query_one(RawConfig)
        raw.display = show
        self.query_one("#provider-form").display = not show and bool(self.names)
        if show:
            raw.show(self.snapshot.text if self.snapshot else "")

    def changed_labels(self) -> list[str]:
        labels = dict(FORM)
        return [labels[field] for field in self.changes()] if self.doc is not None and self.current else []

    def quit_question(self) -> tuple[str, str] | None:
        changed = self.changed_labels()
        if not changed:
            return None
        return (
            _("Quit and discard changes to {fields}?").format(fields=", ".join(changed)),
            _("They are not saved in config.toml yet."),
        )

    def action_back(self) -> None:
        changed = self.changed_labels()
        if self.stop_waiting():  # Esc while a save or a restore waits for config.toml's lock: it stops
            return
        if not changed:
            self.host.back()
            return

        self.app.push_screen(discard_question(changed, self.current), self._discard_if)

    def _discard_if(self, discard: bool | None) -> None:
        if discard:
            self.host.back()
