"""Accounts on Home (#44), with Pilot: every named account is a row with who is signed in and
the active one marked; `w` on a row switches the managed provider to it; Enter on a region that
has an account asks: another account (a name, refused when it cannot be one) or this one again.
Two accounts are signed in against the local authorization server as two subjects."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

from tests.app.helpers import screen_name, screen_text, toasts, wait_for
from tests.conftest import write_creds
from tests.waiting import until
from tui.app import AssistantAuthApp
from tui.app.screens.doctor import DoctorScreen
from tui.core.config.provider import provision_managed_provider
from tui.core.slots.choice import managed_slot
from tui.core.spec.keys import account_key, account_slot
from tui.demo.server import DEVICE_PATH

SIZE = (100, 30)


def two_accounts(server, home) -> None:
    for name, subject in (("work", "alice"), ("personal", "bob")):
        tokens = {**server.issue_tokens(subject=subject), "expires_at": int(time.time()) + 600}
        write_creds(home, tokens, name=account_slot("cn", name))
    provision_managed_provider(account_key("cn", "work"), "cn")


def row(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if f"{name} (cn)" in line and ("alice" in line or "bob" in line))


async def test_home_lists_the_accounts_and_w_switches_to_the_highlighted_one(server, home):
    two_accounts(server, home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "alice" in row(text, "work") and "bob" in row(text, "personal")
        rows = [line for line in text.splitlines() if "(cn)" in line]
        assert "*work(cn)" in text.replace(" ", "") and "*personal(cn)" not in text.replace(" ", ""), rows
        assert app.screen.selected_account == "work"  # opened on the active account's row: cn, global, personal, work
        await pilot.press("up")
        assert app.screen.selected_account == "personal"
        await pilot.press("w")
        await wait_for(pilot, lambda: managed_slot() == account_slot("cn", "personal"))
        await wait_for(pilot, lambda: "*personal(cn)" in screen_text(app).replace(" ", ""))  # the row marked
        assert any("now uses account personal (cn) (bob)" in m for m in toasts(app))
    assert server.count(DEVICE_PATH) == 0


async def test_enter_where_an_account_is_asks_add_another_or_again_and_adds_a_named_one(server, home):
    two_accounts(server, home)
    server.auto_approve = 0.3
    server.subject = "carol"
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("home", "enter")  # cn (Home opens on the active account's row): it has accounts
        await wait_for(pilot, lambda: screen_name(app) == "AccountChoiceScreen")
        await pilot.press(*"../x", "enter")
        await wait_for(pilot, lambda: "invalid account name" in screen_text(app))
        assert screen_name(app) == "AccountChoiceScreen" and server.count(DEVICE_PATH) == 0
        await pilot.press(*(["backspace"] * 4), *"work", "enter")
        await wait_for(pilot, lambda: "work is signed in already" in screen_text(app))
        await pilot.press(*(["backspace"] * 4), *"team-2", "enter")
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        assert "carol" in screen_text(app)
    slot = account_slot("cn", "team-2")
    assert json.loads((home / "credentials" / f"{slot}.json").read_text())["access_token"]
    assert managed_slot() == slot  # the new account is the active one
    assert server.count(DEVICE_PATH) == 1


async def test_inspect_by_account_opens_on_its_slot_and_w_there_switches_to_it(server, home):
    two_accounts(server, home)
    slot = account_slot("cn", "personal")
    app = AssistantAuthApp(no_browser=True, start="inspect", slot=slot)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen" and app.screen.selected is not None)
        assert app.screen.selected.name == slot
        await pilot.press("w")
        await wait_for(pilot, lambda: managed_slot() == slot)


async def test_signing_in_to_an_account_while_another_accounts_sign_in_waits_is_refused_with_what_to_do(server, home):
    """One attempt per region: joining another account's waiting attempt would save its tokens
    there, so the wizard says so instead (a toast) and starts nothing."""
    from tests.cli.test_login_join import Login

    two_accounts(server, home)
    waiting = Login(home.parent, 1, "--no-browser", "--account", "personal", "--force")
    try:
        until(lambda: "Code:" in waiting.said)
        app = AssistantAuthApp(no_browser=True, start="inspect", slot=account_slot("cn", "work"))
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen" and app.screen.selected is not None)
            await pilot.press("s")  # sign in to work again
            await wait_for(pilot, lambda: any("account personal (cn)" in m for m in toasts(app)))
            assert screen_name(app) == "CredentialsScreen"
        assert server.count(DEVICE_PATH) == 1  # only the waiting one's
    finally:
        waiting.process.terminate()  # SIGTERM discards its attempt
        waiting.end()


async def test_a_code_screen_that_follows_another_accounts_attempt_names_that_account(server, home):
    """Should two terminals start at the same instant, the one that follows saves where the
    attempt it joined was started for: its code screen says that account, not the one it asked for."""
    from tests.cli.test_login_join import Login
    from tui.app.screens.sign_in import SignInScreen
    from tui.core.spec.regions import Region

    waiting = Login(home.parent, 1, "--no-browser", "--account", "personal")
    try:
        until(lambda: "Code:" in waiting.said)
        app = AssistantAuthApp(no_browser=True)
        async with app.run_test(size=SIZE) as pilot:
            app.push_screen(SignInScreen(Region.CN, account="work"))  # past the wizard's own refusal
            await wait_for(pilot, lambda: screen_name(app) == "SignInScreen" and app.screen.auth is not None)
            await wait_for(pilot, lambda: "Account personal" in screen_text(app))
            assert "Account work" not in screen_text(app)
            await pilot.press("escape")  # stop following; the other terminal's attempt goes on
    finally:
        waiting.process.terminate()
        waiting.end()
    assert server.count(DEVICE_PATH) == 1


async def test_an_account_added_as_the_same_person_is_said_on_the_done_screen(server, home):
    two_accounts(server, home)
    server.auto_approve = 0.3
    server.subject = "alice"  # the browser still signed in as work's person
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("home", "enter")  # cn's row
        await wait_for(pilot, lambda: screen_name(app) == "AccountChoiceScreen")
        await pilot.press(*"team", "enter")  # the focus is in the name field
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        await wait_for(pilot, lambda: "same person as account work (cn)" in screen_text(app))


async def test_signing_out_of_the_active_account_in_the_inspector_switches_to_another(server, home):
    two_accounts(server, home)
    slot = account_slot("cn", "work")  # the active one
    app = AssistantAuthApp(no_browser=True, start="inspect", slot=slot)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen" and app.screen.selected is not None)
        await pilot.press("l")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        await pilot.press("y")
        await wait_for(pilot, lambda: managed_slot() == account_slot("cn", "personal"))
        await wait_for(pilot, lambda: "now uses account personal (cn) (bob)" in " ".join(screen_text(app).split()))
    assert not (home / "credentials" / f"{slot}.json").exists()


async def test_home_says_when_the_active_account_was_signed_out_with_nothing_to_switch_to(server, home):
    two_accounts(server, home)
    (home / "credentials" / f"{account_slot('cn', 'work')}.json").unlink()  # signed out by another program
    (home / "credentials" / f"{account_slot('cn', 'personal')}.json").unlink()
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        said = "Account work (cn), which the managed provider names, is signed out: sign in to it again"
        await wait_for(pilot, lambda: said in screen_text(app))
        assert "(`assistant-auth login --account work --region cn`) or switch to another account." in screen_text(app)


def five_accounts(server, home) -> None:
    for region, name, subject in (
        ("cn", "work", "alice"),
        ("cn", "personal", "bob"),
        ("cn", "team", "carol"),
        ("global", "work", "alice-g"),
        ("global", "oss", "dave"),
    ):
        tokens = {**server.issue_tokens(subject=subject), "expires_at": int(time.time()) + 3600}
        write_creds(home, tokens, name=account_slot(region, name))
    provision_managed_provider(account_key("global", "oss"), "global")


async def test_home_with_five_accounts_opens_on_the_active_one_and_says_what_each_region_has(server, home):
    five_accounts(server, home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.selected_account == "oss" and app.screen.selected_region.value == "global"
        text = screen_text(app)
        assert "dave · in use" in text  # its row is in view, not scrolled out
        assert "Not signed in" not in text
        assert text.count("no sign-in of its own; its accounts are below") == 2
        await pilot.press("up", "up", "up", "up")  # the global region's own row (cn, global, then the accounts)
        assert app.screen.rows.selected_row == "global" and app.screen.selected_account is None
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "AccountChoiceScreen")
        question = screen_text(app)
        assert "global has no sign-in of its own, only named accounts" in question
        assert "oss (global) · dave" in question and "Sign in to global" in question
        assert "Sign in again" not in question and "Not signed in" not in question
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
    assert server.count(DEVICE_PATH) == 0


async def test_in_the_demo_a_approves_each_account_as_a_person_of_its_own(server, home):
    two_accounts(server, home)
    demo = SimpleNamespace(page=server.verification_uri(), approve=server.approve_on_page, serve=False)
    app = AssistantAuthApp(no_browser=True, demo=demo)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("home", "enter")
        await wait_for(pilot, lambda: screen_name(app) == "AccountChoiceScreen")
        await pilot.press(*"team", "enter")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen" and app.screen.auth is not None)
        await pilot.press("a")
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        assert "demo-team" in screen_text(app) and "same person" not in screen_text(app)


async def test_the_wizards_doctor_knows_a_named_accounts_key_as_ours(server, home):
    two_accounts(server, home)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(DoctorScreen(offline=True))
        await wait_for(pilot, lambda: screen_name(app) == "DoctorScreen" and bool(app.screen.checks))
        checks = {check.name: check for check in app.screen.checks}
        assert checks["config.oauth_host"].status == "ok", checks["config.oauth_host"]
        assert "was not made for" not in screen_text(app)
