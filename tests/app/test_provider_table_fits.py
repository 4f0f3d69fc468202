"""#57 12: at 60 columns the provider editor's table was cut at the pane's edge, its header to
"启" in Chinese (the table scrolled sideways). Its columns are now laid out for the pane: every
header whole, a long value cut with … (the columns that matter least first, a provider's name
never while another column can go), and a column that cannot fit left out (the form under the
table shows every field), at every size and after a resize, in English and Chinese."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st
from rich.cells import cell_len

from tests.app.helpers import wait_for
from tests.app.test_providers_screen import open_providers, write_config
from tui.app import AssistantAuthApp
from tui.app.widgets.columns import PADDING, Column, widths
from tui.app.widgets.fitted_table import provider_columns

CJK_AND_ASCII = st.text(alphabet=st.sampled_from("ab-_:/.启用生效中托管提供方"), max_size=40)


@st.composite
def tables(draw):
    count = draw(st.integers(min_value=1, max_value=7))
    columns = [
        Column(
            draw(CJK_AND_ASCII.filter(bool)),
            least=draw(st.none() | st.integers(min_value=1, max_value=20)),
            keep=draw(st.integers(min_value=0, max_value=9)),
        )
        for _ in range(count)
    ]
    rows = draw(st.lists(st.lists(CJK_AND_ASCII, min_size=count, max_size=count), max_size=5))
    return columns, rows


@settings(max_examples=300, deadline=None)
@given(tables(), st.integers(min_value=0, max_value=200))
def test_the_shown_columns_fit_whole_headers_and_never_grow(table, room):
    columns, rows = table
    placed = widths(columns, rows, room)
    shown = [i for i, w in enumerate(placed) if w is not None]
    assert shown, "the column that matters most is always shown"
    natural = [max([cell_len(c.label), *(cell_len(r[i]) for r in rows)]) for i, c in enumerate(columns)]
    for i in shown:
        assert cell_len(columns[i].label) <= placed[i] <= natural[i]  # a header whole; no cell wider than needed
        if columns[i].least is None:
            assert placed[i] == natural[i]  # a column that is never cut is shown whole
    if len(shown) > 1:
        assert sum(placed[i] for i in shown) + PADDING * len(shown) <= room
    left_out = [i for i, w in enumerate(placed) if w is None]
    if left_out:  # only those that matter less than every shown one go
        assert max(columns[i].keep for i in left_out) <= min(columns[i].keep for i in shown)
    if sum(natural) + PADDING * len(columns) <= room:
        assert placed == natural  # room for all: nothing cut, nothing left out


def test_the_least_important_column_is_cut_first():
    columns = [Column("name", keep=9), Column("url", least=5, keep=6), Column("host", least=5, keep=1)]
    rows = [["provider", "https://example.test/v1", "auth.example.test"]]
    assert widths(columns, rows, 40) == [8, 21, 5]  # the host cut to its least before the URL is touched
    assert widths(columns, rows, 20) == [8, 8, None]  # no room for the host at all: it goes


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("size", [(60, 18), (80, 24), (100, 30)])
async def test_the_editors_table_fits_its_pane_with_every_header_whole(home, monkeypatch, size, lang):
    monkeypatch.setenv("ASSISTANT_LANG", lang)
    write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await open_providers(pilot)
        table = app.screen.query_one("#provider-table")
        await wait_for(pilot, lambda: table.row_count == 2)
        _fits(table)
        headers = [str(column.label) for column in table.ordered_columns]
        labels = [c.label for c in provider_columns()]
        assert headers[0] == labels[0] and set(headers) <= set(labels)  # whole, the name's first
        assert "managed:assistant-code" in [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


async def test_the_columns_follow_a_resize(home, monkeypatch):
    monkeypatch.setenv("ASSISTANT_LANG", "zh-CN")
    write_config(home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_providers(pilot)
        table = app.screen.query_one("#provider-table")
        wide = len(table.ordered_columns)
        await pilot.resize_terminal(60, 18)
        await wait_for(pilot, lambda: len(table.ordered_columns) < wide)
        _fits(table)
        await pilot.resize_terminal(100, 30)
        await wait_for(pilot, lambda: len(table.ordered_columns) == wide)


def _fits(table) -> None:
    used = sum(column.get_render_width(table) for column in table.ordered_columns)
    assert used <= table.size.width, (used, table.size.width)
