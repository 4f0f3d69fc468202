"""#57 6: Home's rows lost their columns when a row was wider than the pane (60x18; 80x24 with a
long state): the summary wrapped under its `*` marker, the list's rows under their labels. Each
row is now fitted to its pane in its middle column (shortened with …), at every size and after a
resize, in English and Chinese."""

from __future__ import annotations

import time

import pytest

from tests.app.helpers import screen_name, wait_for
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.core.config.provider import provision_managed_provider
from tui.core.spec.keys import account_key, account_slot
from tui.core.text.textwidth import cells


def _long_home(home, monkeypatch) -> None:
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_CN", "https://auth.cn.a-rather-long-corporate-example.test")
    far = int(time.time()) + 3000
    write_creds(home, {"access_token": "at", "refresh_token": "rt", "expires_at": far})
    write_creds(
        home, {"access_token": "at", "refresh_token": "rt", "expires_at": far - 9000}, account_slot("cn", "work")
    )
    write_creds(
        home,
        {"access_token": "at", "refresh_token": "rt", "expires_at": far},
        account_slot("global", "personal-projects"),
    )
    provision_managed_provider(account_key("cn", "work"), "cn")


def _slot_rows(app) -> list[str]:
    """The summary's rows, one per slot (the sentences below them are prose, wrapped as prose)."""
    return str(app.screen.query_one("#slot").render()).splitlines()[: len(app.screen.view.with_regions())]


def _rows_fit(app) -> None:
    width = app.screen.query_one("#slot").content_region.width
    for line in _slot_rows(app):
        assert cells(line) <= width, (line, width)
    regions = app.screen.query_one("#regions")
    for index in range(regions.option_count):
        prompt = str(regions.get_option_at_index(index).prompt)
        assert cells(prompt) <= regions.content_region.width, (prompt, regions.content_region.width)


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("size", [(60, 18), (80, 24), (100, 30)])
async def test_every_row_fits_its_pane(home, monkeypatch, size, lang):
    _long_home(home, monkeypatch)
    monkeypatch.setenv("ASSISTANT_LANG", lang)
    app = AssistantAuthApp()
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await pilot.pause()
        _rows_fit(app)
        marked = [line for line in _slot_rows(app) if line.startswith("*")]
        assert len(marked) == 1 and "work (cn)" in marked[0]  # the marker column kept on its row


async def test_rows_are_fitted_again_after_a_resize(home, monkeypatch):
    _long_home(home, monkeypatch)
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        wide = str(app.screen.query_one("#slot").render())
        await pilot.resize_terminal(60, 18)
        await wait_for(pilot, lambda: str(app.screen.query_one("#slot").render()) != wide)
        await pilot.pause()
        _rows_fit(app)
