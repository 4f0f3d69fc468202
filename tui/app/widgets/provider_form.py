"""The provider editor's form: one row per field of a provider (a text field or an on/off switch
with the state in words, and an error line), validated as you type; ↑/↓ move between its fields.
The screen decides what is loaded and saved; the form draws values and says which are invalid."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Input, Static, Switch

from tui.app.widgets.safe import OneLine, PlainStatic
from tui.app.widgets.text_field import TextField
from tui.core.config.edit import BOOL_FIELDS, validate
from tui.core.text.i18n import _
from tui.core.text.phrase import N_

FORM = [
    ("base_url", "base_url"),
    ("enabled", "enabled"),
    ("active", "active"),
    ("oauth_key", "oauth key"),
    ("oauth_host", "oauthHost"),
    ("api_key", "api_key"),
    ("note", "note"),
]


class ProviderForm(VerticalScroll, can_focus=False):
    """The form: ↑/↓ move between its fields (the focused one scrolls into view), so what is typed
    always lands in a field the person sees; the mouse wheel still scrolls."""

    managed = False  # the shown entry is the one a sign-in writes (`show`)

    BINDINGS = [
        Binding("up", "move_field(-1)", N_("Previous field"), show=False),
        Binding("down", "move_field(1)", N_("Next field"), show=False),
    ]

    def fields(self) -> list[Widget]:
        return [w for w in self.query("Input, Switch") if w.focusable]

    def action_move_field(self, step: int) -> None:
        fields = self.fields()
        focused = self.screen.focused
        if focused not in fields:
            return
        index = fields.index(focused) + step
        if index < 0:
            self.screen.query_one("#provider-table").focus()  # above the first field: the table
        elif index < len(fields):
            fields[index].focus()

    def compose(self) -> ComposeResult:
        yield OneLine("", id="form-title")
        for field, label in FORM:
            with Horizontal(classes="form-row", id=f"row-{field}"):
                yield Static(label, classes="form-label", markup=False)
                if field in BOOL_FIELDS:
                    yield Switch(id=f"field-{field}")
                    yield Static(_("off"), id=f"state-{field}", classes="switch-state", markup=False)
                else:
                    yield TextField(id=f"field-{field}", password=field == "api_key", compact=True)
            yield OneLine("", classes="form-error", id=f"error-{field}")
            if field == "active":
                yield PlainStatic("", classes="form-note", id="note-active")

    def show(self, title: str, values: dict[str, object], managed: bool = False) -> None:
        """A provider's values (as loaded), with no error shown; `managed`: the entry a sign-in
        writes (its `active` off is said in words: the spec writes it so, nothing of ours reads it)."""
        self.managed = managed
        self.query_one("#form-title", PlainStatic).set_text(title)
        for field, _label in FORM:
            widget = self.query_one(f"#field-{field}")
            value = values[field]
            if isinstance(widget, Switch):
                widget.value = bool(value)
                self.show_switch(field, bool(value))
            elif isinstance(widget, Input):
                widget.value = str(value)
            self.set_error(field, None)

    def values(self) -> dict[str, object]:
        values: dict[str, object] = {}
        for field, _label in FORM:
            widget = self.query_one(f"#field-{field}")
            values[field] = widget.value if isinstance(widget, (Input, Switch)) else None
        return values

    def set_error(self, field: str, message: str | None) -> None:
        error = self.query_one(f"#error-{field}", PlainStatic)
        error.set_text(message or "")
        error.display = bool(message)
        self.query_one(f"#row-{field}").set_class(bool(message), "invalid")

    def first_invalid(self, problems: dict[str, str | None]) -> Widget | None:
        """Show every problem; the field of the first one in the form's order, if any."""
        for field, message in problems.items():
            self.set_error(field, message)
        invalid = [field for field, _label in FORM if problems.get(field)]
        return self.query_one(f"#field-{invalid[0]}") if invalid else None

    @property
    def any_invalid(self) -> bool:
        return bool(self.query(".form-row.invalid"))

    def show_switch(self, field: str, value: bool) -> None:
        """On/off in words beside the switch: two grey blocks say nothing under NO_COLOR."""
        self.query_one(f"#state-{field}", Static).update(_("on") if value else _("off"))
        if field == "active":  # the managed entry's `active` off, said in words under it
            note = self.query_one("#note-active", PlainStatic)
            note.set_text(_("A sign-in writes it off; `assistant-auth token` uses this entry anyway."))
            note.display = self.managed and not value

    def on_switch_changed(self, event: Switch.Changed) -> None:
        field = (event.switch.id or "").removeprefix("field-")
        if field in BOOL_FIELDS:
            self.show_switch(field, event.value)

    def on_input_changed(self, event: Input.Changed) -> None:  # bubbles on to the screen
        field = (event.input.id or "").removeprefix("field-")
        if field:
            self.set_error(field, validate(field, event.value))
