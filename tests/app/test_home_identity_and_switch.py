"""Who and where: Home lists every slot with its identity, Done says who signed in, switching
regions, and keeping polling with the same code after server trouble."""

from __future__ import annotations

import time

import pytest

from tests.app.helpers import footer_text, screen_name, screen_text, wait_for
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.core import Region
from tui.core.config.provider import provision_managed_provider
from tui.core.slots.switch import managed_region
from tui.core.spec.keys import region_key, region_storage_name
from tui.demo.server import DEVICE_PATH, TOKEN_PATH, Fault

SIZE = (100, 30)


def home_line(text: str, region: str) -> str:
    line = next(line for line in text.splitlines() if f" {region} " in line and "signed" in line.lower())
    return line.lstrip(" █")  # the status border on the left


def sign_in_both(server, home) -> None:
    for region in Region:
        write_creds(
            home,
            {**server.issue_tokens(subject=f"user-{region.value}"), "expires_at": int(time.time()) + 600},
            name=region_storage_name(region),
        )
    provision_managed_provider(region_key(Region.CN), Region.CN)


async def test_home_after_a_global_sign_in_shows_global_signed_in_with_identity(server, home):
    server.auto_approve = 0.5
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        assert "Signed in as user-1 · global" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        text = screen_text(app)
        line = home_line(text, "global")
        assert line.lstrip().startswith("*") and "Signed in as user-1" in line
        assert "not signed in" in home_line(text, "cn").lower()
    again = AssistantAuthApp(no_browser=True)  # a new start preselects the managed provider's region
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.screen.selected_region is Region.GLOBAL
    explicit = AssistantAuthApp(Region.CN, no_browser=True)  # an explicit --region wins
    async with explicit.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert explicit.screen.selected_region is Region.CN


async def test_switch_on_home_moves_the_managed_provider(server, home):
    sign_in_both(server, home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert home_line(screen_text(app), "cn").lstrip().startswith("*")
        await pilot.press("down", "w")
        await wait_for(pilot, lambda: home_line(screen_text(app), "global").lstrip().startswith("*"))
        assert managed_region() is Region.GLOBAL
        assert "Signed in as user-global" in home_line(screen_text(app), "global")


async def test_switch_is_offered_only_to_a_usable_sign_in_not_in_use(server, home):
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    provision_managed_provider(region_key(Region.CN), Region.CN)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "Credentials" in footer_text(app))
        assert "Switch to it" not in footer_text(app)  # cn: already in use
        await pilot.press("down")  # global: nobody signed in there
        await pilot.pause()
        assert "Switch to it" not in footer_text(app)
        await pilot.press("w")
        await pilot.pause()
        assert not app._notifications  # nothing sends the person out of the wizard
        assert managed_region() is Region.CN
        assert home_line(screen_text(app), "cn").lstrip().startswith("*")


async def test_keep_polling_after_a_502_ends_in_success_with_the_same_device_code(server, home, quick_retry):
    server.user_code_factory = lambda: "KEEP-POLL"
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        server.inject(TOKEN_PATH, Fault(status=502, body="<h1>502 Bad Gateway</h1>", content_type="text/html", times=2))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        text = screen_text(app)
        assert "Token polling failed (HTTP 502)" in text and "keeps polling with the same code" in text
        server.approve("KEEP-POLL")  # approved in the browser meanwhile
        await pilot.press("k")
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        assert "Signed in as user-1 · cn" in screen_text(app)
    assert server.count(DEVICE_PATH) == 1  # one code: nobody had to start over
    device_codes = {r.form.get("device_code") for r in server.requests(TOKEN_PATH)}
    assert len(device_codes) == 1 and server.count(TOKEN_PATH) >= 3


async def test_keep_polling_is_withdrawn_when_the_code_runs_out_on_the_outcome_screen(server, home, quick_retry):
    """Walked: the outcome screen still offered `k` after the code had expired, and `k` did
    nothing. At the code's end the offer goes, the sentence says so, Enter starts a new code."""
    server.user_code_factory = lambda: "RUNS-OUTX"
    now = [1000.0]  # the sign-in's clock, moved by the test: the code runs out when the test says
    app = AssistantAuthApp(no_browser=True)
    app.signin_clock = lambda: now[0]
    async with app.run_test(size=SIZE) as pilot:
        server.inject(TOKEN_PATH, Fault(status=502, body="<h1>502</h1>", content_type="text/html", times=2))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        assert app.screen.can_keep_polling and "Keep polling" in footer_text(app)
        now[0] += 900  # the code's whole lifetime later
        await wait_for(pilot, lambda: "The code has expired meanwhile" in " ".join(screen_text(app).split()))
        assert "Keep polling" not in footer_text(app) and not app.screen.query("#keep")
        server.user_code_factory = lambda: "NEWC-ODEX"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "N E W C" in screen_text(app))
    assert server.count(DEVICE_PATH) == 2


async def test_esc_while_a_poll_hangs_returns_to_a_home_without_the_discarded_sign_in(server, home):
    """Walked: Esc while a poll hung on the server, and Home, drawn at once, said the sign-in still
    waited for approval and offered to follow it (its record ended a moment later)."""
    server.inject(TOKEN_PATH, Fault(mode="hang"))
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: server.count(TOKEN_PATH) == 1)  # the poll is in flight, unanswered
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        assert "waits for approval" not in " ".join(screen_text(app).split())
        assert not app.screen.check_action("abandon", ())  # nothing to abandon: it is gone


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
async def test_the_done_screen_keeps_every_value_whole_at_60_columns(server, home, monkeypatch, lang):
    """Walked at 60x18: the credentials path (a slot named for an overridden host) broke inside
    its name. A value that does not fit beside its label goes under it, whole; again on a resize."""
    from tui.core.spec.keys import region_storage_name

    monkeypatch.setenv("ASSISTANT_LANG", lang)
    server.user_code_factory = lambda: "DONE-SIXT"
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(60, 18)) as pilot:
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: "D O N E" in screen_text(app))
        server.approve("DONE-SIXT")
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        path = f"credentials/{region_storage_name('global')}.json"
        for size in ((60, 18), (100, 30), (60, 18)):
            await pilot.resize_terminal(*size)
            await wait_for(pilot, lambda size=size: app.screen.laid_out_for == size[0])
            await wait_for(pilot, lambda: any(path in line for line in screen_text(app).splitlines()))  # one line
