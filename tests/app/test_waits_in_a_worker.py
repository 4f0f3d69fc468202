"""#57 4: logging out in the inspector while another process held the slot's lock froze the whole
app (nothing redrew, no key was handled) and the "waiting for the lock" line went to stderr under
the screen. The change runs in a worker: the wait is said on the notice line, the screen takes
keys, Esc stops the wait (nothing removed), and once the holder lets go the change is made."""

from __future__ import annotations

import pytest

from tests.app.helpers import answer, footer_text, screen_name, screen_text, toasts, wait_for
from tests.conftest import write_creds
from tests.lock_holder import holding
from tui.app import AssistantAuthApp
from tui.core.spec.keys import region_storage_name


@pytest.fixture(autouse=True)
def patient_locks(monkeypatch):
    """Every wait here lasts until the test ends it (Esc, or the holder letting go), never by a timeout."""
    monkeypatch.setenv("ASSISTANT_LOCK_TIMEOUT", "600")


@pytest.fixture
def held_slot(home):
    """cn's slot, its flock held by a second process (the official client's protocol)."""
    path = write_creds(home, {"access_token": "at", "refresh_token": "rt", "expires_at": 4_000_000_000})
    with holding(home / "credentials" / f"{region_storage_name('cn')}.lock") as holder:
        yield path, holder


def toasted(app, message: str) -> bool:
    return message in toasts(app)


async def _log_out(pilot, app) -> None:
    await pilot.press("i")
    await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
    await answer(pilot, "l", "y")


async def test_a_held_lock_is_waited_for_in_a_worker_said_on_screen_and_esc_stops_it(held_slot):
    path, _holder = held_slot
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await _log_out(pilot, app)
        await wait_for(pilot, lambda: "Waiting for" in screen_text(app) and "Esc stops waiting" in screen_text(app))
        await pilot.press("question_mark")  # the app takes keys while it waits: help opens
        await wait_for(pilot, lambda: screen_name(app) == "HelpScreen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        await pilot.press("escape")  # on the inspector: stops the wait, stays
        await wait_for(pilot, lambda: "Stopped waiting for the lock: nothing was changed" in screen_text(app))
        assert screen_name(app) == "CredentialsScreen"
    assert path.exists()


async def test_the_change_is_made_once_the_holder_lets_go(held_slot):
    path, holder = held_slot
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await _log_out(pilot, app)
        await wait_for(pilot, lambda: "Waiting for" in screen_text(app))
        holder.release()
        await wait_for(pilot, lambda: "Signed out: removed" in screen_text(app))
    assert not path.exists()


async def test_the_editors_save_waits_in_a_worker_for_config_tomls_lock(home):
    """The same for the provider editor's save: config.toml's lock held by another command."""
    from tests.app.test_providers_screen import open_providers, type_into, write_config

    path = write_config(home)
    before = path.read_text()
    with holding(home):  # config.toml's lock, held by another command
        app = AssistantAuthApp()
        async with app.run_test(size=(100, 30)) as pilot:
            await open_providers(pilot)
            await type_into(pilot, "#field-base_url", "https://proxy.test/v2")
            await answer(pilot, "ctrl+s", "y")
            await wait_for(pilot, lambda: "Waiting for the lock of" in screen_text(app))
            await pilot.press("escape")  # stops the wait; the edit stays in the form
            await wait_for(pilot, lambda: "Stopped waiting for the lock: nothing was changed" in screen_text(app))
            assert screen_name(app) == "ProvidersScreen"
            assert app.screen.query_one("#field-base_url").value == "https://proxy.test/v2"
    assert path.read_text() == before


async def test_homes_switch_waits_in_a_worker_for_config_tomls_lock(home):
    """Home's `w`: the switch waits for config.toml's lock in a worker, says so under the rows,
    offers Esc, which stops it with the managed provider where it was; once the holder lets go a
    second `w` switches."""
    from tui.core.config.provider import provision_managed_provider
    from tui.core.slots.switch import managed_region
    from tui.core.spec.keys import region_key
    from tui.core.spec.regions import Region

    tokens = {"access_token": "at", "refresh_token": "rt", "expires_at": 4_000_000_000}
    write_creds(home, tokens)
    write_creds(home, tokens, name=region_storage_name("global"))
    provision_managed_provider(region_key(Region.CN), Region.CN)
    with holding(home) as holder:  # config.toml's lock, held by another command
        app = AssistantAuthApp()
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "w")
            await wait_for(pilot, lambda: "Waiting for the lock of" in screen_text(app))
            assert "Stop waiting" in footer_text(app)
            await pilot.press("up")  # Home takes keys while the switch waits
            await wait_for(pilot, lambda: app.screen.selected_region is Region.CN)
            await pilot.press("escape")
            await wait_for(pilot, lambda: toasted(app, "Stopped waiting for the lock: nothing was changed."))
            assert managed_region() is Region.CN and "Waiting for" not in screen_text(app)
            assert "Stop waiting" not in footer_text(app)
            holder.release()
            await pilot.press("down", "w")
            await wait_for(pilot, lambda: managed_region() is Region.GLOBAL)
            await wait_for(pilot, lambda: any(n.title == "Switched" for n in app._notifications))


async def test_a_doctor_repair_waits_in_a_worker_for_the_slots_lock(home):
    """Doctor's `f` on an unreadable slot (move it aside, under the slot's lock): the wait is said
    on the screen, Esc stops it (the file stays), and the repair is made once the lock is free."""
    from tests.app.test_doctor_screen import open_doctor

    path = write_creds(home, "{not json")
    with holding(home / "credentials" / f"{region_storage_name('cn')}.lock") as holder:
        app = AssistantAuthApp()
        async with app.run_test(size=(100, 30)) as pilot:
            await open_doctor(pilot)
            await wait_for(pilot, lambda: app.screen.selected is not None and app.screen.selected.repair is not None)
            await answer(pilot, "f", "y")
            await wait_for(pilot, lambda: "Waiting for" in screen_text(app) and "Esc stops waiting" in screen_text(app))
            await pilot.press("escape")  # stops the wait; Doctor stays
            await wait_for(pilot, lambda: toasted(app, "Stopped waiting for the lock: nothing was changed."))
            assert screen_name(app) == "DoctorScreen" and path.exists()
            assert not app.screen.selected.repair_failed  # the finding stays as it was: f is offered again
            holder.release()
            await answer(pilot, "f", "y")
            await wait_for(pilot, lambda: not path.exists())
            await wait_for(pilot, lambda: any(n.title == "Repaired" for n in app._notifications))
