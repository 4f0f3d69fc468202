"""Fixtures of the command-line tests."""

from __future__ import annotations

import pytest

from tests.cli.test_tui_in_tmux import Terminal


@pytest.fixture
def terminal():
    """Opens real terminals (tmux, each on its own socket) and closes every one after the test."""
    opened = []

    def open_(*args, **kwargs):
        term = Terminal(*args, **kwargs)
        opened.append(term)
        return term

    yield open_
    for term in opened:
        term.close()
