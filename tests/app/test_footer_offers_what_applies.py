"""While a code is being requested, the footer offers no key that could only say there is nothing
yet (#57 9): `c`, `u` and `r` come once there is a code to copy or draw."""

from __future__ import annotations

import asyncio

import httpx

from tests.app.helpers import footer_text, screen_name, wait_for
from tui.app import AssistantAuthApp


async def test_copy_and_qr_are_offered_once_there_is_a_code(home):
    answer = asyncio.Event()

    async def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/device_authorization"):
            await answer.wait()  # the code is being requested until the test lets it arrive
            return httpx.Response(
                200,
                json={
                    "device_code": "dc-footer",
                    "user_code": "ABCD-EFGH",
                    "verification_uri": "https://auth.example/device",
                    "verification_uri_complete": "https://auth.example/device?code=ABCD-EFGH",
                    "expires_in": 600,
                    "interval": 5,
                },
            )
        return httpx.Response(400, json={"error": "authorization_pending"})

    client = httpx.AsyncClient(transport=httpx.MockTransport(handle))
    app = AssistantAuthApp(no_browser=True, http_client=client)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen" and "Cancel" in footer_text(app))
        screen = app.screen
        for action in ("copy_code", "copy_url", "toggle_qr"):
            assert screen.check_action(action, ()) is False
        assert "Copy code" not in footer_text(app) and "QR code" not in footer_text(app)
        answer.set()
        await wait_for(pilot, lambda: "Copy code" in footer_text(app))
        assert all(screen.check_action(action, ()) for action in ("copy_code", "copy_url", "toggle_qr"))
        await pilot.press("escape")
    await client.aclose()
