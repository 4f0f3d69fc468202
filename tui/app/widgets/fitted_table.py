"""A table whose columns are laid out for its pane (`columns.widths`) whenever its rows or its
width change, never cut at the pane's edge: the provider editor's (a column left out at a narrow
width loses nothing: the form under it shows every field) and Doctor's (the details pane under
it shows a finding whole)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from textual import events
from textual.widgets import DataTable

from tui.app.widgets.columns import Column, widths
from tui.app.widgets.safe import cell
from tui.core.text.i18n import _

Row = tuple[str, Sequence[str]]  # (the row's key, its cells)


def provider_columns() -> list[Column]:
    """The columns, in the reader's language: the name first and last to go, then whether it is in
    use; the OAuth key and host (long, and shown in the form) go first."""
    return [
        Column(_("Provider"), keep=9),  # a name is never cut while another column can go
        Column(_("Type"), keep=2),
        Column("base_url", least=12, keep=6),
        Column(_("On"), keep=5),
        Column(_("Active"), keep=8),
        Column(_("Managed"), keep=4),
        Column(_("OAuth key / host"), least=12, keep=1),
    ]


def doctor_columns() -> list[Column]:
    """Doctor's columns: the status whole, the check's name, the finding cut first (shown whole
    in the details pane under the table)."""
    return [Column(_("Status"), keep=9), Column(_("Check"), least=14, keep=8), Column(_("Finding"), least=8, keep=5)]


class FittedTable(DataTable[object]):
    def __init__(self, columns: Callable[[], list[Column]], **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.columns_for = columns  # the columns, in the reader's language (read when laid out)
        self.rows_shown: list[Row] = []
        self.laid_out_for = 0  # the width the columns were last laid out for

    def show(self, rows: Sequence[Row], cursor: int = 0) -> None:
        """Draw `rows` (none: an empty table), the cursor on row `cursor`."""
        self.rows_shown = list(rows)
        self._lay_out(cursor)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self.laid_out_for:  # a new width only: laying out again must not loop
            self._lay_out(self.cursor_row)

    def _lay_out(self, cursor: int) -> None:
        width = self.size.width or self.app.size.width
        self.laid_out_for = self.size.width
        room = width - self.styles.scrollbar_size_vertical  # a scroll bar may take its cells
        columns = self.columns_for()
        fitted = widths(columns, [cells for _name, cells in self.rows_shown], room)
        kept = [i for i, w in enumerate(fitted) if w is not None]
        self.clear(columns=True)
        for i in kept:
            self.add_column(columns[i].label, width=fitted[i])
        for name, cells in self.rows_shown:
            self.add_row(*(cell(cells[i]) for i in kept), key=name)
        if self.rows_shown:
            self.move_cursor(row=min(max(cursor, 0), len(self.rows_shown) - 1))
