"""The provider editor's table: one row per provider of config.toml, its columns laid out for
the pane (`columns.widths`) whenever its rows or its width change. A column left out at a narrow
width loses nothing: the form under the table shows every field of the highlighted provider."""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.widgets import DataTable

from tui.app.widgets.columns import Column, widths
from tui.app.widgets.safe import cell
from tui.core.i18n import _

Row = tuple[str, Sequence[str]]  # (the provider's name: the row's key, its cells)


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


class ProviderTable(DataTable[object]):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
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
        columns = provider_columns()
        fitted = widths(columns, [cells for _name, cells in self.rows_shown], room)
        kept = [i for i, w in enumerate(fitted) if w is not None]
        self.clear(columns=True)
        for i in kept:
            self.add_column(columns[i].label, width=fitted[i])
        for name, cells in self.rows_shown:
            self.add_row(*(cell(cells[i]) for i in kept), key=name)
        if self.rows_shown:
            self.move_cursor(row=min(max(cursor, 0), len(self.rows_shown) - 1))
