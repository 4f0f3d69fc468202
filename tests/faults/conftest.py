"""Shared pieces of the fault suite."""

from __future__ import annotations

import pathlib

import pytest


def snapshot(home: pathlib.Path) -> dict[str, bytes]:
    """Every file under the config dir, by relative path (locks and the official client's lock
    markers in `oauth/` excluded: they hold nothing; so is `signin/`, the attempt's record, which
    ends reduced to how the attempt ended: no code, no token)."""
    if not home.exists():
        return {}
    return {
        str(p.relative_to(home)): p.read_bytes()
        for p in sorted(home.rglob("*"))
        if p.is_file()
        and not p.name.endswith(".lock")
        and p.name != "device_id"
        and p.relative_to(home).parts[0] not in ("oauth", "signin")
    }


@pytest.fixture
def fast_timeout(monkeypatch):
    """Shrink the 10 s request budget to 4 s for the many timeout cases (one test keeps 10 s): short
    enough for the hanging cases, long enough that a loaded machine never turns an injected fault
    into a timeout (2 s did once, with the suite and other runs on two cores)."""
    import tui.core.http as http

    monkeypatch.setattr(http, "REQUEST_TIMEOUT", 4.0)
    return 4.0
