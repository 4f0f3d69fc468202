"""Helpers for Pilot tests: wait for a condition, read what is on screen."""

from __future__ import annotations

import html
import re
import time

from tests.waiting import PATIENCE


async def wait_for(pilot, predicate, timeout: float = PATIENCE, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            await pilot.pause()  # let the new state finish composing and painting
            return True
        await pilot.pause(step)
    raise AssertionError(f"condition not met within {timeout} s")


def screen_text(app) -> str:
    """The text a person sees (from the SVG export), one line per terminal row."""
    svg = app.export_screenshot()
    rows: dict[float, list[tuple[float, str]]] = {}
    for match in re.finditer(r'<text[^>]*x="([\d.]+)"[^>]*y="([\d.]+)"[^>]*>(.*?)</text>', svg, re.S):
        x, y, body = float(match.group(1)), float(match.group(2)), match.group(3)
        text = html.unescape(re.sub(r"<[^>]+>", "", body)).replace("\xa0", " ")
        rows.setdefault(y, []).append((x, text))
    return "\n".join("".join(t for _x, t in sorted(parts)) for _y, parts in sorted(rows.items()))


def screen_name(app) -> str:
    return type(app.screen).__name__


async def run_palette_command(pilot, words: str, screen: str, timeout: float = PATIENCE) -> None:
    """Run a command by name from the command palette, as a person does: ctrl+p, type `words`,
    wait until the palette's first match is that command (not a fixed pause), Enter, then wait
    until the screen named `screen` is shown."""
    from textual.command import CommandList, CommandPalette

    app = pilot.app
    await pilot.press("ctrl+p")
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), timeout)
    await pilot.press(*words)

    def first_match_is_it() -> bool:
        results = app.screen.query_one(CommandList)
        if results.option_count == 0:
            return False
        prompt = results.get_option_at_index(0).prompt
        return str(getattr(prompt, "plain", prompt)).lower().startswith(words.lower())

    await wait_for(pilot, first_match_is_it, timeout)
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen_name(app) == screen, timeout)


async def answer(pilot, key: str, answer_key: str, timeout: float = PATIENCE) -> None:
    """Press `key`, wait until its question (a ConfirmScreen) is on screen, then answer it with
    `answer_key`: never a keystroke that could land on the screen below under load."""
    await pilot.press(key)
    await wait_for(pilot, lambda: screen_name(pilot.app) == "ConfirmScreen", timeout)
    await pilot.press(answer_key)
    await wait_for(pilot, lambda: screen_name(pilot.app) != "ConfirmScreen", timeout)


def footer_text(app) -> str:
    """The screen's last row: its footer's keys."""
    return screen_text(app).splitlines()[-1]


def toasts(app) -> list[str]:
    """The toasts' messages as said, each on one line: the app wraps a toast's message to the
    toast's width (its own rule: never inside a word or a command)."""
    return [" ".join(str(note.message).split()) for note in app._notifications]
