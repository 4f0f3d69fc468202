"""Spec 3.2, 4.1, 4.2 (device grant): the poll state table row by row, with respx."""

import json

import httpx
import pytest
import respx

from tests.conftest import CN_HOST, GLOBAL_HOST, read_json
from tui.core import (
    AuthError,
    DeviceAuthorization,
    PollStatus,
    Region,
    poll_device_token,
    start_device_authorization,
)
from tui.core.signin.protocol import DEVICE_GRANT

DEVICE_URL = CN_HOST + "/api/oauth/device_authorization"
TOKEN_URL = CN_HOST + "/api/oauth/token"
TOKENS = {"access_token": "AT-secret-1", "refresh_token": "RT-secret-1", "expires_in": 900, "token_type": "Bearer"}


class FakeTime:
    def __init__(self):
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self):
        return self.now

    async def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


def err(code, status=400):
    return httpx.Response(status, json={"error": code})


# -- start_device_authorization ---------------------------------------------------------------


@respx.mock
async def test_start_success_and_request_shape():
    route = respx.post(DEVICE_URL).mock(
        return_value=httpx.Response(200, json={"user_code": "ABCD-EFGH", "device_code": "dc", "interval": 5})
    )
    auth = await start_device_authorization("cn")
    assert auth == DeviceAuthorization("ABCD-EFGH", "dc", None, None, None, 5)
    assert auth.to_dict() == {
        "user_code": "ABCD-EFGH",
        "device_code": "dc",
        "verification_uri": None,
        "verification_uri_complete": None,
        "expires_in": None,
        "interval": 5,
    }
    request = route.calls.last.request
    assert request.headers["content-type"] == "application/x-www-form-urlencoded"
    assert request.content == b"client_id=test-client"
    assert request.headers["X-Vendor-Platform"] and request.headers["X-Vendor-Device-Id"]


@respx.mock
async def test_start_uses_region_host_without_trailing_slash(monkeypatch):
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_GLOBAL", GLOBAL_HOST + "/")
    route = respx.post(GLOBAL_HOST + "/api/oauth/device_authorization").mock(
        return_value=httpx.Response(200, json={"user_code": "u", "device_code": "d"})
    )
    await start_device_authorization(Region.GLOBAL)
    assert route.called


@respx.mock
async def test_start_http_error_excerpt_is_200_chars():
    respx.post(DEVICE_URL).mock(return_value=httpx.Response(503, text="x" * 500))
    with pytest.raises(AuthError) as info:
        await start_device_authorization()
    assert str(info.value) == "Device authorization failed (HTTP 503): " + "x" * 200


@respx.mock
async def test_start_transport_failure():
    respx.post(DEVICE_URL).mock(side_effect=httpx.ConnectError("connection refused"))
    with pytest.raises(AuthError) as info:
        await start_device_authorization()
    assert str(info.value) == "Device authorization request failed: ConnectError: connection refused"


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[]",
        '{"user_code": "u"}',
        '{"user_code": 1, "device_code": "d"}',
        '{"user_code": "u", "device_code": "d", "interval": "5"}',
    ],
)
@respx.mock
async def test_start_unparsable_success_body(body):
    respx.post(DEVICE_URL).mock(return_value=httpx.Response(200, text=body))
    with pytest.raises(AuthError) as info:
        await start_device_authorization()
    assert str(info.value).startswith("Failed to parse device authorization response: ")


# -- poll_device_token ------------------------------------------------------------------------


@respx.mock
async def test_poll_success_persists_and_provisions(home):
    route = respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json=TOKENS))
    t = FakeTime()
    status = await poll_device_token("dc-1", 5, "cn", clock=t.clock, sleep=t.sleep)
    assert status == PollStatus("success") and status.to_dict() == {"status": "success"}
    assert t.sleeps == []  # first poll immediate
    form = dict(x.split("=") for x in route.calls.last.request.content.decode().split("&"))
    assert form == {"grant_type": DEVICE_GRANT.replace(":", "%3A"), "client_id": "test-client", "device_code": "dc-1"}
    assert route.calls.last.request.headers["X-Vendor-Device-Id"]
    creds = read_json(home / "credentials" / "assistant-code.json")
    assert creds["access_token"] == "AT-secret-1" and creds["refresh_token"] == "RT-secret-1"
    assert "managed:assistant-code" in (home / "config.toml").read_text()


@respx.mock
async def test_poll_pending_then_success_sleeps_interval():
    respx.post(TOKEN_URL).mock(
        side_effect=[err("authorization_pending"), err("authorization_pending"), httpx.Response(200, json=TOKENS)]
    )
    t = FakeTime()
    seen = []
    status = await poll_device_token("dc", 3, clock=t.clock, sleep=t.sleep, on_status=seen.append)
    assert status.status == "success"
    assert t.sleeps == [3, 3]
    assert seen == [PollStatus("pending", 3), PollStatus("pending", 3)]
    assert seen[0].to_dict() == {"status": "pending", "interval": 3}


@pytest.mark.parametrize("initial, first", [(0, 1), (-5, 1), (1, 1), (7, 7)])
@respx.mock
async def test_poll_interval_minimum_is_one(initial, first):
    respx.post(TOKEN_URL).mock(side_effect=[err("authorization_pending"), httpx.Response(200, json=TOKENS)])
    t = FakeTime()
    await poll_device_token("dc", initial, clock=t.clock, sleep=t.sleep)
    assert t.sleeps == [first]


@respx.mock
async def test_poll_slow_down_adds_five():
    respx.post(TOKEN_URL).mock(
        side_effect=[err("slow_down"), err("authorization_pending"), err("slow_down"), httpx.Response(200, json=TOKENS)]
    )
    t = FakeTime()
    seen = []
    await poll_device_token("dc", 2, clock=t.clock, sleep=t.sleep, on_status=seen.append)
    assert t.sleeps == [7, 7, 12]
    assert [s.to_dict() for s in seen] == [
        {"status": "slow_down", "interval": 7},
        {"status": "pending", "interval": 7},
        {"status": "slow_down", "interval": 12},
    ]


@pytest.mark.parametrize("code, status", [("expired_token", "expired"), ("access_denied", "access_denied")])
@respx.mock
async def test_poll_terminal_errors(code, status, home):
    respx.post(TOKEN_URL).mock(return_value=err(code))
    result = await poll_device_token("dc", 5, sleep=FakeTime().sleep)
    assert result == PollStatus(status)
    assert not (home / "credentials").exists()


@respx.mock
async def test_poll_other_error_code():
    body = json.dumps({"error": "invalid_grant", "error_description": "y" * 300})
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(400, text=body))
    with pytest.raises(AuthError) as info:
        await poll_device_token("dc", 5)
    assert str(info.value) == f"Token polling error (invalid_grant): {body[:200]}"


@pytest.mark.parametrize("body", ["<html>bad gateway</html>", '{"error": 42}', "[]", ""])
@respx.mock
async def test_poll_non_json_error(body):
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(502, text=body))
    with pytest.raises(AuthError) as info:
        await poll_device_token("dc", 5)
    assert str(info.value) == f"Token polling failed (HTTP 502): {body[:200]}"


@respx.mock
async def test_poll_success_unparsable():
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, text='{"token": "x"}'))
    with pytest.raises(AuthError) as info:
        await poll_device_token("dc", 5)
    assert str(info.value) == "Failed to parse token response: missing field `access_token`"


@respx.mock
async def test_poll_transport_failure():
    respx.post(TOKEN_URL).mock(side_effect=httpx.ReadTimeout("timed out"))
    with pytest.raises(AuthError) as info:
        await poll_device_token("dc", 5)
    assert str(info.value) == "Token polling request failed: ReadTimeout: timed out"


@respx.mock
async def test_poll_timeout_after_budget():
    route = respx.post(TOKEN_URL).mock(return_value=err("authorization_pending"))
    t = FakeTime()
    result = await poll_device_token("dc", 100, clock=t.clock, sleep=t.sleep)
    assert result == PollStatus("timeout")
    # polls at 0,100,...,800; at 800 the next sleep would reach the 900 s deadline
    assert route.call_count == 9 and sum(t.sleeps) == 800


@respx.mock
async def test_poll_timeout_grows_with_slow_down():
    route = respx.post(TOKEN_URL).mock(return_value=err("slow_down"))
    t = FakeTime()
    assert (await poll_device_token("dc", 5, clock=t.clock, sleep=t.sleep)).status == "timeout"
    assert t.sleeps == list(range(10, 95, 5))  # at 850 s the next 95 s would pass the deadline
    assert route.call_count == len(t.sleeps) + 1


def _credentials_dir_is_a_file(home):
    (home / "credentials").write_text("a file where the directory should be")
    return home / "credentials"


def _broken_config(home):
    (home / "config.toml").write_text("[broken\n")
    return home / "config.toml"


@pytest.mark.parametrize(
    "fault, message",
    [
        (_credentials_dir_is_a_file, "Failed to write credentials: "),
        (_broken_config, "Failed to read assistant config: "),
    ],
    ids=["credentials-write", "config-read"],
)
@respx.mock
async def test_poll_saving_failure_fails_polling(home, fault, message):
    home.mkdir(parents=True)
    damaged = fault(home)
    before = damaged.read_bytes()
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json=TOKENS))
    with pytest.raises(AuthError) as info:
        await poll_device_token("dc", 5)
    assert str(info.value).startswith(message)
    assert "AT-secret" not in str(info.value)
    assert damaged.read_bytes() == before  # reported, never overwritten


@respx.mock
async def test_poll_global_region_uses_global_host(home):
    route = respx.post(GLOBAL_HOST + "/api/oauth/token").mock(return_value=httpx.Response(200, json=TOKENS))
    assert (await poll_device_token("dc", 5, "global")).status == "success"
    assert route.called
    names = [p.name for p in (home / "credentials").glob("*.json")]
    assert len(names) == 1 and names[0].startswith("assistant-code-env-")


def test_poll_status_to_dict_shapes():
    assert PollStatus("slow_down", 10).to_dict() == {"status": "slow_down", "interval": 10}
    for name in ("success", "expired", "access_denied", "timeout"):
        assert PollStatus(name).to_dict() == {"status": name}


def test_device_code_not_in_repr():
    assert "secret-dc" not in repr(DeviceAuthorization("U", "secret-dc"))


@respx.mock
async def test_persist_waits_for_a_refresh_holding_the_slot_lock(home):
    import asyncio

    from tui.core.credentials.locks import hold_slot, reporting_to

    respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json=TOKENS))
    waits: list[str] = []
    async with hold_slot("assistant-code"):
        with reporting_to(waits.append):  # the task's context: its "Waiting for …" line comes here
            task = asyncio.create_task(poll_device_token("dc", 5))
        while not waits:  # the event itself: the approved tokens wait for the slot's lock
            assert not task.done()
            await asyncio.sleep(0.05)
        assert "assistant-code" in waits[0]
        assert not task.done() and not (home / "credentials" / "assistant-code.json").exists()
    assert (await task).status == "success"
    assert read_json(home / "credentials" / "assistant-code.json")["access_token"] == "AT-secret-1"


def test_poll_interval_and_time_budget():
    assert DeviceAuthorization("U", "D").poll_interval == 5  # RFC 8628 default
    assert DeviceAuthorization("U", "D", interval=0).poll_interval == 0  # the loop clamps it to 1
    assert DeviceAuthorization("U", "D").time_budget == 900
    assert DeviceAuthorization("U", "D", expires_in=300).time_budget == 300
    assert DeviceAuthorization("U", "D", expires_in=10**9).time_budget == 900
    assert DeviceAuthorization("U", "D", expires_in=-5).time_budget == 900  # nonsense: the budget rules
    assert DeviceAuthorization("U", "D", expires_in=0).time_budget == 900
