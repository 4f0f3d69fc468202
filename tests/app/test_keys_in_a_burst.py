"""Keys that arrive together are applied in the order they arrived: in Textual 8.2 a plain
`Input` inserts a printable key at once while a bound key (End, Backspace) waits for the event
to bubble up to the app, so a burst applied them out of order (Textual issue 6605). Every text
field of the wizard is a `TextField`, which runs a bound key where it arrives."""

from __future__ import annotations

import pathlib

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.widgets import Input

import tui.app
from tests.app.helpers import wait_for
from tests.app.test_providers_screen import open_providers, write_config
from tui.app import AssistantAuthApp
from tui.app.widgets.text_field import TextField

BURST = [("end", None), ("backspace", None), ("backspace", None), ("v", "v"), ("2", "2")]


def burst(app: App, keys=BURST) -> None:
    """Every key posted before any is handled: what a terminal's one read of several keys gives."""
    for key, character in keys:
        app.post_message(events.Key(key, character))


class OneField(App):
    def __init__(self, field: type[Input]) -> None:
        super().__init__()
        self.field = field

    def compose(self) -> ComposeResult:
        yield self.field(value="https://api.example.test/v1")


async def test_a_burst_applies_in_order_in_a_text_field():
    app = OneField(TextField)
    async with app.run_test() as pilot:
        field = app.query_one(TextField)
        burst(app)
        await wait_for(pilot, lambda: field.value == "https://api.example.test/v2")
        await pilot.pause()
        assert field.value == "https://api.example.test/v2" and field.cursor_position == len(field.value)


async def test_the_upstream_input_is_still_what_the_text_field_is_for():
    """The cause, kept in view: when a Textual release applies the burst in order in a plain
    `Input`, this fails, and `TextField` can go."""
    app = OneField(Input)
    async with app.run_test() as pilot:
        field = app.query_one(Input)
        burst(app)
        await wait_for(pilot, lambda: field.value in ("", "https://api.example.test/v2"))
        await pilot.pause()
        assert field.value == ""  # the selected value replaced by "v", then both keys deleted it


@pytest.mark.parametrize("size", [(80, 24), (60, 18)])
async def test_the_provider_editors_base_url_takes_a_burst(home, size):
    write_config(home)
    app = AssistantAuthApp()
    async with app.run_test(size=size) as pilot:
        await open_providers(pilot)
        field = app.screen.query_one("#field-base_url", TextField)
        field.focus()
        await pilot.pause()
        burst(app)
        await wait_for(pilot, lambda: field.value == "https://api.openai.test/v2")


async def test_every_text_field_of_the_wizard_is_a_text_field(home):
    """No plain `Input` is left for a burst to reorder (the editor's fields, the account name)."""
    write_config(home)
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 34)) as pilot:
        await open_providers(pilot)
        inputs = list(app.screen.query(Input))
        assert inputs and all(isinstance(widget, TextField) for widget in inputs)
    made = [path for path in pathlib.Path(tui.app.__file__).parent.rglob("*.py") if "Input(" in path.read_text()]
    assert made == [], "a plain Input in the wizard"
