"""Credential inspector: states, masking, live reload and every repair action, with real files."""

import os
import re
import stat
import time

from tests.app.helpers import (
    answer,
    run_palette_command,
    screen_name,
    screen_text,
    wait_for,
)
from tests.conftest import read_json, write_creds
from tui.app import AssistantAuthApp
from tui.core.spec.keys import region_storage_name
from tui.demo.server import TOKEN_PATH

SIZE = (100, 30)


def secret_fragments(token: str) -> list[str]:
    """Parts of a token longer than what masking may show (4 + 4 characters)."""
    return [token[i : i + 9] for i in range(0, len(token) - 9, 3)]


async def open_inspector(pilot):
    await pilot.press("i")
    await wait_for(pilot, lambda: screen_name(pilot.app) == "CredentialsScreen")


async def test_lists_slots_with_states_and_masks_tokens(home, server):
    tokens = server.issue_tokens()
    write_creds(home, {**tokens, "expires_at": int(time.time()) + 600, "custom": "kept"})
    write_creds(home, {"access_token": "AT-expired-no-refresh", "expires_at": 1}, name=region_storage_name("global"))
    write_creds(home, "{corrupt", name="broken")
    write_creds(home, "[1, 2]", name="listy")
    write_creds(home, {"refresh_token": "x"}, name="noaccess")
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(100, 45)) as pilot:
        await open_inspector(pilot)
        text = screen_text(app)
        unwrapped = re.sub(r"\n *", "", text)  # the path wraps where the temporary directory's length says
        assert "/credentials/assistant-code.json" in unwrapped  # the file, in the details
        for words in (
            " cn ",  # the region's own slot named as Home names it
            " global ",
            "valid",
            "unparsable",
            "not an object",
            "missing access_token",
            "expired (no refresh",
        ):
            assert words in text, text
        assert "Access token claims" in text and "user-1" in text
        assert tokens["access_token"][:4] + "…" + tokens["access_token"][-4:] in text
        for fragment in secret_fragments(tokens["access_token"]) + secret_fragments(tokens["refresh_token"]):
            assert fragment not in text


async def test_live_countdown_and_reload_on_external_change(home):
    write_creds(home, {"access_token": "AT-1", "refresh_token": "r", "expires_at": int(time.time()) + 300})
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        assert "4:5" in screen_text(app) or "5:00" in screen_text(app)
        # the official CLI writes another slot and rewrites this one
        write_creds(home, {"access_token": "AT-2", "expires_at": 1}, name="official")
        await wait_for(pilot, lambda: "official" in screen_text(app))
        assert "reloaded" in screen_text(app)


async def test_refresh_now_through_core(home, server):
    tokens = server.issue_tokens()
    path = write_creds(home, {**tokens, "expires_at": int(time.time()) + 100})
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        await pilot.press("r")
        assert screen_name(app) == "ConfirmScreen"
        await pilot.press("y")
        await wait_for(pilot, lambda: "Refreshed cn." in screen_text(app))
    assert server.count(TOKEN_PATH, "refresh_token") == 1
    assert read_json(path)["refresh_token"] != tokens["refresh_token"]


async def test_refresh_failure_shows_spec_text(home, server):
    write_creds(home, {"access_token": "AT-1", "refresh_token": "RT-unknown", "expires_at": 1})
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(140, 30)) as pilot:
        await open_inspector(pilot)
        await answer(pilot, "r", "y")
        await wait_for(pilot, lambda: "login expired and refresh failed (HTTP 400)" in screen_text(app))
        assert "RT-unknown" not in screen_text(app)
        app.screen.tick()  # the next second's look at the disk: the refresh's own lock file is no news
        await pilot.pause()
        assert "login expired and refresh failed (HTTP 400)" in screen_text(app)


async def test_cancelled_confirmation_changes_nothing(home):
    path = write_creds(home, {"access_token": "AT-1", "refresh_token": "r"})
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        await pilot.press("l")
        await pilot.press("n")
        assert screen_name(app) == "CredentialsScreen"
    assert path.exists()


async def test_fix_permissions(home):
    path = write_creds(home, {"access_token": "AT-1"})
    os.chmod(path, 0o644)
    os.chmod(path.parent, 0o755)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        assert "0644" in screen_text(app)
        await answer(pilot, "m", "y")
        await wait_for(pilot, lambda: "Permissions fixed" in screen_text(app))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


async def test_corrupt_file_moved_aside_then_sign_in(home, server):
    write_creds(home, "{corrupt but precious")
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        await pilot.press("x")
        assert screen_name(app) == "ConfirmScreen"
        await pilot.press("y")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")
        await pilot.press("escape")
    aside = [p for p in (home / "credentials").iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_text() == "{corrupt but precious"
    assert not (home / "credentials" / "assistant-code.json").exists()


async def test_move_aside_refused_for_valid_file(home):
    path = write_creds(home, {"access_token": "AT-1"})
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        assert "Move aside" not in screen_text(app).splitlines()[-1]  # not offered for a readable file
        await pilot.press("x")
        await pilot.pause()
        assert screen_name(app) == "CredentialsScreen"
    assert path.exists()


async def test_logout_removes_slot(home):
    path = write_creds(home, {"access_token": "AT-1"})
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        await answer(pilot, "l", "y")
        await wait_for(pilot, lambda: "Signed out" in screen_text(app))
    assert not path.exists()


async def test_sign_in_again_uses_slot_region(home, server):
    from tui.core import Region, derive_scoped_key, endpoints, resolve_storage_name

    ep = endpoints(Region.GLOBAL)
    name = resolve_storage_name(derive_scoped_key(ep.oauth_host, ep.base_url))
    write_creds(home, {"access_token": "AT-1", "expires_at": 1}, name=name)
    (home / "credentials" / "assistant-code.json").unlink(missing_ok=True)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await open_inspector(pilot)
        await pilot.press("down")  # the default slot is listed first (missing)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")
        assert app.screen.account_region is Region.GLOBAL
        await pilot.press("escape")


async def test_reachable_from_command_palette(home):
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await run_palette_command(pilot, "Credentials", "CredentialsScreen")


def test_a_write_in_flight_is_not_a_change_on_disk(home):
    """The room a refresh reserves for its answer (and any atomic write's temp file) is hidden
    while it exists: the inspector must not take it for a change and say "Files changed on disk"
    over the refresh's own result (it did, under load, when its 1-second tick fell inside a
    refresh)."""
    from tui.app.screens.credentials import disk_signature
    from tui.core.credentials.slot import reserve_room

    write_creds(home, {"access_token": "AT-1", "refresh_token": "r"})
    before = disk_signature()
    reserved = reserve_room("assistant-code")
    try:
        assert disk_signature() == before
    finally:
        reserved.discard()
    assert disk_signature() == before
    write_creds(home, {"access_token": "AT-2", "refresh_token": "r2"})  # a real change is still seen
    assert disk_signature() != before


async def test_a_wrongly_typed_field_is_moved_aside_and_a_dangling_link_shown_as_a_link(home, server):
    """#56 1, 8: the inspector reads a file as `token` does: `"expires_at": "1795880980"` is a
    field of the wrong type (x moves it aside, nothing deleted), never "valid"; a link whose
    target moved is a link, with where it pointed and both repairs."""
    bad = write_creds(home, {"access_token": "at", "refresh_token": "rt", "expires_at": "1795880980"})
    gone = home / "credentials" / "dangling.json"
    gone.symlink_to(home.parent / "dotfiles" / "kimi-code.json")
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await open_inspector(pilot)
        table = app.screen.query_one("#slots")
        row = next(i for i in range(table.row_count) if "dangling" in str(table.get_row_at(i)[0]))
        table.move_cursor(row=row)
        await wait_for(pilot, lambda: "(gone)" in screen_text(app))
        flat = " ".join(screen_text(app).split())
        assert "dotfiles/kimi-code.json (gone)" in flat and "link to a missing file" in flat
        assert "restore" in flat and "rm " in flat
        table.move_cursor(row=0)
        await wait_for(pilot, lambda: "a field of the wrong type" in screen_text(app))
        assert "Press x to move it aside" in " ".join(screen_text(app).split())
        await pilot.press("x")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")
        await pilot.press("escape")
    assert not bad.exists()
    assert [p.name for p in bad.parent.iterdir() if p.name.startswith("assistant-code.json.corrupt-")]
