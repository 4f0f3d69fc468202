"""#57 11: what the program says names a region's own sign-in as a person does ("cn"), never by
its file's name, and never as "account cn" (no account of that name exists); a repair's title is
the row it repairs."""

from __future__ import annotations

from tests.conftest import write_creds
from tui.core.config.provider import provision_managed_provider
from tui.core.spec.keys import account_key, account_slot, region_storage_name
from tui.core.spec.regions import Region


def _jwt(sub: str) -> str:
    import base64
    import json

    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part({'sub': sub, 'iss': 'https://issuer.test'})}.sig"


def test_the_same_person_note_calls_a_regions_own_sign_in_by_its_region(home):
    from tui.core.person.same_person import same_person_warning

    token = {"access_token": _jwt("ada"), "refresh_token": "rt", "expires_at": 4_000_000_000}
    write_creds(home, token, region_storage_name("cn"))
    write_creds(home, token, account_slot("cn", "work"))
    said = same_person_warning(account_slot("cn", "work")) or ""
    assert "account work (cn)" in said and "the cn sign-in" in said and "account cn" not in said
    said = same_person_warning(region_storage_name("cn")) or ""
    assert said.startswith("Same person: the cn sign-in is signed in as the same person as account work (cn)")


def test_doctor_names_the_managed_providers_slot_as_home_does(home, monkeypatch):
    """A region's own slot under a host of its own (a derived slot name): "cn", not the file name."""
    from tui.core.config.read import read_config_readonly
    from tui.core.doctor.config import _managed_slot

    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_CN", "https://auth.elsewhere.test")
    provision_managed_provider(account_key(Region.CN, "default"), Region.CN)
    write_creds(home, {"access_token": "at", "refresh_token": "rt", "expires_at": 4_000_000_000})
    check = _managed_slot(read_config_readonly())
    assert "assistant-code-" not in check.finding and "the slot cn" in check.finding, check.finding


async def test_a_repairs_title_is_the_row_it_repairs(home):
    """The Doctor screen's question named `files.slot.assistant-code-account-cn-work` under the row
    `files.slot.work (cn)`: it names the row."""
    import os

    from tests.app.helpers import screen_name, screen_text, wait_for
    from tui.app import AssistantAuthApp

    path = write_creds(
        home, {"access_token": "at", "refresh_token": "rt", "expires_at": 4_000_000_000}, account_slot("cn", "work")
    )
    os.chmod(path, 0o644)
    app = AssistantAuthApp(start="doctor")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "DoctorScreen" and app.screen.checks)
        screen = app.screen
        index = next(i for i, c in enumerate(screen.checks) if c.name == f"files.slot.{account_slot('cn', 'work')}")
        screen.query_one("#doctor-checks").move_cursor(row=index)
        await wait_for(pilot, lambda: screen.check_action("fix", ()))
        await pilot.press("f")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        text = screen_text(app)
        assert "Repair files.slot.work (cn)?" in text and "assistant-code-account" not in text.split("?")[0]


def test_the_ssh_line_and_a_records_resume_name_the_login_of_the_slot_itself(home):
    """Walked: a sign-in to account work (global) over SSH said `assistant-auth login --region
    global` resumes it; the same words come from the slot, as every other next step does."""
    from tui.core.signin.record import Record
    from tui.core.spec.keys import account_slot, region_storage_name
    from tui.core.spec.regions import Region
    from tui.terminal.environment import ssh_note

    assert "`assistant-auth login --account work --region global`" in ssh_note(account_slot("global", "work"))
    assert "`assistant-auth login --region global`" in ssh_note(region_storage_name("global"))
    assert "`assistant-auth login`" in ssh_note(region_storage_name("cn"))
    for account, command in (
        (None, "assistant-auth login --region global"),
        ("work", "assistant-auth login --account work --region global"),
    ):
        record = Record(state="pending", region=Region.GLOBAL, started_at=0.0, account=account)
        assert record.resume_command() == command
