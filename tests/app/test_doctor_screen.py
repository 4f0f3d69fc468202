"""The Doctor screen: the same checks as the command, live, a repair key behind a confirmation."""

from __future__ import annotations

import os
import threading
import time

from tests.app.helpers import footer_text, run_palette_command, screen_name, screen_text, wait_for
from tests.conftest import write_creds
from tui.app import AssistantAuthApp


async def open_doctor(pilot, key: str = "d") -> None:
    await pilot.press(key)
    await wait_for(pilot, lambda: screen_name(pilot.app) == "DoctorScreen")
    await wait_for(pilot, lambda: bool(pilot.app.screen.checks), timeout=30)


async def test_doctor_from_home_shows_progress_then_checks_and_repairs_a_mode(home, monkeypatch):
    import tui.core.doctor.runner as runner

    real = runner.probe_region
    release = threading.Event()

    def slow(region):  # a network stage that takes until the test has looked at the progress
        release.wait(30)
        return real(region)

    monkeypatch.setattr(runner, "probe_region", slow)
    path = write_creds(home, {"access_token": "AT-1", "refresh_token": "RT", "expires_at": int(time.time()) + 600})
    os.chmod(path, 0o644)
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await wait_for(pilot, lambda: screen_name(app) == "DoctorScreen")
        await wait_for(pilot, lambda: "network path" in str(app.screen.query_one("#doctor-progress").render()))
        assert app.screen.query_one("#doctor-loading").display  # progress while the checks run
        release.set()
        await wait_for(pilot, lambda: bool(app.screen.checks), timeout=30)
        # the table drawn with them (not only the checks known): the exact state asserted below
        await wait_for(pilot, lambda: "network.cn.host" in screen_text(app))  # the network stages ran too
        text = screen_text(app)
        assert "✘ fail  files.slot.cn" in text  # the slot named as Home names it
        # the cursor starts on the first failure: f repairs what the header points at
        await wait_for(pilot, lambda: "files.slot.cn" in str(app.screen.query_one("#doctor-detail").render()))
        detail = str(app.screen.query_one("#doctor-detail").render())
        assert "has mode 0644" in detail and "Press f to repair: chmod 0600" in detail
        await pilot.press("f")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "chmod 0600" in screen_text(app)  # exactly what will change
        await pilot.press("y")
        await wait_for(pilot, lambda: path.stat().st_mode & 0o777 == 0o600)
        await wait_for(
            pilot,
            lambda: (
                screen_name(app) == "DoctorScreen"
                and any(c.name == "files.slot.assistant-code" and c.status == "ok" for c in app.screen.checks)
            ),
            timeout=30,
        )


async def test_doctor_from_the_inspector_and_the_palette(home):
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        await open_doctor(pilot, "d")  # as on Home
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        await run_palette_command(pilot, "Doctor", "DoctorScreen")


async def test_no_repair_says_so(home):
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await open_doctor(pilot)
        # first row: the config dir, which does not exist yet: nothing to repair, so f is not offered
        assert app.screen.selected.repair is None and not app.screen.check_action("fix", ())
        assert "Repair" not in footer_text(app)
        await pilot.press("f")
        await pilot.pause()
        assert screen_name(app) == "DoctorScreen"  # no question, nothing changed
