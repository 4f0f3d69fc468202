"""Words a person uses, at every size: a slot named as Home names it (never its file's name) in the
inspector, doctor and toasts; doctor's finding column not pushed out by a check's id; one toast at a
time on a short terminal; Chinese buttons and the live stats whole at 60x18; a screen a command
opened goes back to the shell; `d` is Doctor on every screen; the managed entry's `active` said."""

from __future__ import annotations

import time

import pytest
from textual.geometry import Region as Box
from textual.widgets import Button
from textual.widgets._toast import Toast

from tests.app.helpers import footer_text, screen_name, screen_text, wait_for
from tests.app.test_providers_screen import write_config
from tests.conftest import write_creds
from tests.waiting import PATIENCE
from tui.app import AssistantAuthApp
from tui.app.widgets.code_pane import whole_parts
from tui.core.config.provider import provision_managed_provider
from tui.core.spec.keys import region_key, region_storage_name
from tui.core.spec.regions import Region
from tui.core.text.textwidth import cells

SIZES = [(80, 24), (60, 18)]


def signed_in_global(home) -> None:
    write_creds(
        home,
        {"access_token": "AT-1", "refresh_token": "RT-1", "expires_at": int(time.time()) + 600},
        name=region_storage_name(Region.GLOBAL),
    )
    provision_managed_provider(region_key(Region.GLOBAL), Region.GLOBAL)


@pytest.mark.parametrize("size", SIZES)
async def test_the_inspector_names_the_global_slot_global(home, size):
    signed_in_global(home)
    app = AssistantAuthApp(start="inspect")
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen" and " global " in screen_text(app))
        table = screen_text(app).split("────")[0]
        assert region_storage_name(Region.GLOBAL) not in table and "assistant-code-env" not in table
        await pilot.press("down", "r")  # global's row; refresh: its question names it too
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "Refresh global now?" in screen_text(app)


@pytest.mark.parametrize("size", SIZES)
async def test_doctor_names_slots_as_home_does_and_keeps_room_for_the_finding(home, size):
    signed_in_global(home)
    app = AssistantAuthApp(start="doctor")
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "DoctorScreen" and app.screen.checks)
        await wait_for(pilot, lambda: "credentials.global" in screen_text(app))
        table = screen_text(app)
        assert "assistant-code-env" not in table.split("\n\n\n")[0]
        check = next(c for c in app.screen.checks if c.name.startswith("credentials.assistant-code-env"))
        assert check.label == "credentials.global"  # the stable id stays in --json
        assert "global (the managed provider's)" in check.finding


async def test_one_toast_at_a_time_on_a_short_terminal(home):
    app = AssistantAuthApp()
    async with app.run_test(size=(60, 18)) as pilot:
        for n in range(3):
            app.notify(f"toast {n}")
        await pilot.pause()
        assert [n.message for n in app._notifications] == ["toast 2"]
    app = AssistantAuthApp()
    async with app.run_test(size=(80, 24)) as pilot:
        for n in range(3):
            app.notify(f"toast {n}")
        await pilot.pause()
        assert len(app._notifications) == 3


@pytest.mark.parametrize("size", SIZES)
async def test_chinese_buttons_keep_their_words(home, monkeypatch, size):
    monkeypatch.setenv("ASSISTANT_LANG", "zh-CN")
    write_creds(home, {"access_token": "AT-1", "refresh_token": "RT-1", "expires_at": int(time.time()) + 600})
    app = AssistantAuthApp()
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: "诊断" in footer_text(app))  # Home, drawn
        await pilot.press("enter")  # cn has an account: add another, or sign in again?
        await wait_for(pilot, lambda: screen_name(app) == "AccountChoiceScreen")
        text = screen_text(app)
        for button in app.screen.query(Button):
            label = str(button.label)
            assert button.content_region.width >= cells(label), label
            assert label in text, label  # "取消（n）", never "取消（n"


def test_the_live_stats_wrap_only_between_their_parts():
    line = whole_parts("每 1 秒轮询一次 · 已轮询 3 次 · 被要求降速 0 次")
    assert line.split(" · ") == ["每\u00a01\u00a0秒轮询一次", "已轮询\u00a03\u00a0次", "被要求降速\u00a00\u00a0次"]


@pytest.mark.parametrize("start", ["inspect", "providers", "doctor"])
async def test_esc_on_the_screen_a_command_opened_ends_the_app(home, start):
    app = AssistantAuthApp(start=start)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) != "HomeScreen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.is_running)
    assert app.return_code in (0, None)


async def test_esc_opened_from_home_goes_back_home(home):
    app = AssistantAuthApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        assert app.is_running


async def test_d_is_doctor_on_home_and_in_the_inspector_and_l_logs_out(home):
    write_creds(home, {"access_token": "AT-1", "refresh_token": "RT-1", "expires_at": int(time.time()) + 600})
    app = AssistantAuthApp()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "d Doctor" in footer_text(app))
        await pilot.press("i")
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        assert "l Log out" in footer_text(app)
        await pilot.press("d")
        await wait_for(pilot, lambda: screen_name(app) == "DoctorScreen")


@pytest.mark.parametrize("size", SIZES)
async def test_the_managed_entrys_active_off_is_said(home, size):
    signed_in_global(home)
    app = AssistantAuthApp(start="providers")
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen" and app.screen.current)
        text = " ".join(screen_text(app).split())
        assert "A sign-in writes it off" in text


async def test_another_providers_active_is_plain_on_or_off(home):
    write_config(home)
    app = AssistantAuthApp(start="providers")
    async with app.run_test(size=(100, 34)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "ProvidersScreen" and app.screen.current == "openai")
        assert "A sign-in writes it off" not in screen_text(app)


@pytest.mark.parametrize("size", [(60, 18), (80, 24), (100, 30)])
async def test_a_chinese_toast_never_breaks_a_file_name_or_a_command(home, size):
    """Walked at 60x18: a switch's toast broke "config.toml" as "conf / ig.toml" (Textual folds a
    run without spaces). A toast's message is wrapped by the project's rule to the toast's width."""
    said = "已切换：托管提供方现在使用 global（user-global）；官方客户端也会随之切换（config.toml 是共享的）。运行 `assistant-auth status` 查看。"
    app = AssistantAuthApp()
    async with app.run_test(size=size, notifications=True) as pilot:  # toasts drawn, as in a terminal
        app.notify(said, markup=False, timeout=PATIENCE)  # read before it goes, however slow the machine
        await wait_for(pilot, lambda: bool(app.query(Toast)))
        await pilot.pause()
        toast = app.query_one(Toast)
        drawn = [strip.text[2:].rstrip() for strip in toast.render_lines(Box(0, 0, *toast.size))][1:-1]
        wrapped = str(list(app._notifications)[-1].message).split("\n")
        assert drawn == wrapped[: len(drawn)]  # as wrapped, Textual folds nothing (a short screen shows fewer)
        assert any("config.toml" in line for line in wrapped)  # each on one line, whole
        assert any("`assistant-auth status`" in line for line in wrapped)
