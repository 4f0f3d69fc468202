"""Fixtures of the command-line tests."""

from __future__ import annotations

import pytest

from tests.cli.test_accounts import sign_in, signed_in
from tests.cli.test_tui_in_tmux import Terminal


@pytest.fixture
def two_signed_in(home, server):
    """work (alice) then personal (bob), both in cn, by real sign-ins; personal is the active one."""
    sign_in(server, "work", "alice")
    sign_in(server, "personal", "bob")
    return home


@pytest.fixture
def two(home, server):
    """The same two accounts, as those sign-ins leave them (no sign-in's wait)."""
    signed_in(home, server, "cn", "work", "alice")
    signed_in(home, server, "cn", "personal", "bob")
    return home


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
