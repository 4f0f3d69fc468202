"""Home's list of rows: a region's own ("cn", "global") and each named account
("account:<region>:<name>"), with which one is highlighted as a region and an account."""

from __future__ import annotations

from textual.widgets import OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

from tui.app.screens.home_text import ACCOUNT_ROW
from tui.core.spec.regions import Region, parse_region


class AccountRows(OptionList):
    @property
    def selected_row(self) -> str:
        """The highlighted row's id: "cn", "global" or "account:<region>:<name>"."""
        index = self.highlighted or 0
        return self.get_option_at_index(min(index, self.option_count - 1)).id or "cn"

    @property
    def selected_region(self) -> Region:
        row = self.selected_row.removeprefix(ACCOUNT_ROW)
        return parse_region(row.split(":")[0])

    @property
    def selected_account(self) -> str | None:
        """The named account of the highlighted row (None: a region's row, its own account)."""
        row = self.selected_row
        return row.split(":", 2)[2] if row.startswith(ACCOUNT_ROW) else None

    def row_of(self, row_id: str) -> int | None:
        """The index of the row `row_id` in the list, None when it has none."""
        try:
            return self.get_option_index(row_id)
        except OptionDoesNotExist:
            return None

    def account_row(self, region: Region, name: str) -> int | None:
        return self.row_of(f"{ACCOUNT_ROW}{region.value}:{name}")

    def show(self, wanted: list[Option]) -> bool:
        """Replace the rows with `wanted` when they differ (False: nothing to do), the highlighted
        one kept where it still is."""
        now = [self.get_option_at_index(i) for i in range(self.option_count)]
        if [(o.id, str(o.prompt)) for o in now] == [(o.id, str(o.prompt)) for o in wanted]:
            return False
        kept = self.selected_row
        self.clear_options()
        self.add_options(wanted)
        self.highlighted = self.row_of(kept) or 0
        return True
