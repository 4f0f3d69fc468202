"""The pending sign-in in the wizard and in the model: Home offers a waiting attempt, `n`
abandons it, the SSH line is one short line, and approved tokens wait only so long without a
terminal."""

from __future__ import annotations

import json
import os

import pytest

from tests.app.helpers import answer, screen_name, screen_text, wait_for
from tests.core.test_cotenancy import competitor, finish, release, wait_locked
from tui.app import AssistantAuthApp
from tui.core.signin import follow
from tui.core.signin.attempt import SignIn
from tui.core.spec.keys import region_storage_name
from tui.core.spec.regions import Region
from tui.terminal.environment import ssh_note


async def waiting_record(server) -> follow.Record:
    """A sign-in another process started and recorded (its lease is free: nobody polls now)."""
    attempt = SignIn(Region.CN)
    await attempt.request_code()
    attempt.shared.lease.release()
    record = follow.read(Region.CN)
    assert record is not None
    return record


async def test_home_offers_a_waiting_sign_in_and_n_abandons_it(home, server):
    record = await waiting_record(server)
    assert follow.is_pending(record)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "sign-in has nobody polling it" in screen_text(app))
        await answer(pilot, "n", "y")
        await wait_for(pilot, lambda: "sign-in has nobody polling it" not in screen_text(app))
    assert not follow.is_pending(follow.read(Region.CN))


async def test_enter_on_home_follows_it_with_the_same_code(home, server):
    record = await waiting_record(server)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "sign-in has nobody polling it" in screen_text(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen" and "Waiting for you" in screen_text(app))
        assert " ".join(record.user_code) in screen_text(app)
        server.approve(record.user_code)
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
    assert server.count("/api/oauth/device_authorization") == 1


@pytest.mark.parametrize("size", [(80, 24), (60, 18)])
async def test_over_ssh_the_code_screen_says_it_survives_in_one_line(home, server, monkeypatch, size):
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 5000 10.0.0.2 22")
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=size) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Connection lost?" in screen_text(app))
        await pilot.press("escape")
    assert len(ssh_note(region_storage_name("global"))) <= 80 and len(ssh_note(region_storage_name("cn"))) <= 80


async def test_no_ssh_line_where_nothing_carries_on(home, server, monkeypatch):
    """A face given an HTTP client (tests, library callers) never detaches, so it never says so."""
    import httpx

    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 5000 10.0.0.2 22")
    async with httpx.AsyncClient() as client:
        app = AssistantAuthApp(no_browser=True, http_client=client)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            await wait_for(pilot, lambda: "Waiting for you" in screen_text(app))
            assert "Connection lost?" not in screen_text(app)
            await pilot.press("escape")


async def test_approved_tokens_wait_only_so_long_without_a_terminal(home, server, monkeypatch):
    """Detached, the wait for the slot's locks is bounded; past it the record says why."""
    monkeypatch.setattr(SignIn, "LOCK_WAIT_DETACHED", 1.0)
    holder = competitor(home, None, action="hold", protocol="dir", seconds=-1)  # until the wait has ended
    wait_locked(holder)
    server.auto_approve = 0.0
    attempt = SignIn(Region.CN)
    await attempt.request_code()
    assert attempt.detach()
    outcome = await attempt.carry_on()
    release(holder)
    finish(holder)
    assert outcome.kind == "error" and "approved but could not be saved: the slot was locked" in outcome.error
    record = follow.read(Region.CN)
    assert record is not None
    assert record.outcome == "error" and "the slot was locked" in (record.detail or "") and not record.seen
    assert "device_code" not in json.loads((home / "signin" / "cn.json").read_text())
    assert not os.path.exists(home / "credentials" / "assistant-code.json")
