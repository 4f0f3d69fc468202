"""Home is where a person looks first (#56 10, 11): every warning `status` prints, Home shows,
from the same overview: a credential file others can read, a config.toml others can write, one
that does not parse, the managed provider's entry gone while a region is signed in."""

from __future__ import annotations

import os

import pytest

from tests.app.helpers import screen_text, wait_for
from tests.cli.test_cli import run
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.core.config.provider import provision_managed_provider
from tui.core.spec.keys import account_key
from tui.core.spec.regions import Region

VALID = {"access_token": "at", "refresh_token": "rt", "expires_at": 4_000_000_000}


def _signed_in(home):
    path = write_creds(home, VALID)
    provision_managed_provider(account_key(Region.CN, "default"), Region.CN)
    return path


def _readable_by_others(home):
    os.chmod(_signed_in(home), 0o644)
    return "has mode 0644: other users can read your tokens"


def _config_writable_by_others(home):
    _signed_in(home)
    os.chmod(home / "config.toml", 0o666)
    return "no refresh token is sent to a host it names"


def _config_does_not_parse(home):
    _signed_in(home)
    (home / "config.toml").write_text("[providers\n")
    return "Failed to read assistant config"


def _managed_entry_gone(home):
    _signed_in(home)
    (home / "config.toml").write_text("# my settings\n[other]\nx = 1\n")
    return "config.toml has no managed provider entry"


CASES = {
    "credential file readable by others": _readable_by_others,
    "config.toml writable by others": _config_writable_by_others,
    "config.toml does not parse": _config_does_not_parse,
    "managed provider entry gone": _managed_entry_gone,
}


@pytest.mark.parametrize("case", list(CASES))
async def test_what_status_warns_of_home_shows(home, case):
    words = CASES[case](home)
    result = run("status")
    assert words in result.stdout, result.stdout
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: words.split(":")[0][:30] in " ".join(screen_text(app).split()))
        text = " ".join(screen_text(app).split())
        assert "warning" in text


def test_status_json_lists_the_warnings_in_english(home, monkeypatch):
    _readable_by_others(home)
    monkeypatch.setenv("ASSISTANT_LANG", "zh-CN")
    import json

    data = json.loads(run("status", "--json").stdout)
    assert any("has mode 0644: other users can read your tokens" in line for line in data["warnings"])
    said = run("status").stdout
    assert "其他用户可以读取你的令牌" in said


async def test_a_home_with_nothing_wrong_shows_no_warning(home):
    _signed_in(home)
    os.chmod(home / "config.toml", 0o600)
    os.chmod(home, 0o700)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await wait_for(pilot, lambda: "Signed in" in screen_text(app))
        notices = app.screen.query_one("#notices")
        assert notices.has_class("none") and "warning" not in screen_text(app), notices.plain_text
