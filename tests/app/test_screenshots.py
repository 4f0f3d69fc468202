"""`make screenshots` works, writes one SVG per screen, and no secret reaches a screenshot."""

import re

from tui.dev.screenshots import capture


async def test_screenshots_are_written_without_secrets(tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "UTC")  # capture() pins TZ; restored after the test
    out = tmp_path / "shots"
    out.mkdir()
    names = await capture(out, home=tmp_path / "screens-home")
    assert len(names) == 10 and len(set(names)) == 10
    for name in names:
        svg = (out / name).read_text()
        assert svg.startswith("<svg")
        assert not re.search(r"eyJ[A-Za-z0-9_-]{8,}|rt_[A-Za-z0-9_-]{8,}|dc_[A-Za-z0-9_-]{8,}", svg), name
    assert "W&#160;D&#160;J&#160;B" in (out / "02-code-and-polling.svg").read_text()
