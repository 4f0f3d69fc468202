"""Misbehaving servers (the local server's fault modes): the spec's message, files untouched."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import write_creds
from tests.faults.conftest import snapshot
from tui.core import (
    AuthError,
    endpoints,
    get_access_token,
    poll_device_token,
    start_device_authorization,
)
from tui.demo.server import DEVICE_PATH, TOKEN_PATH, Fault

MB = 1024 * 1024

# name -> (status, body, content type)
FAULTS = {
    "http500": (500, "Internal Server Error", "text/plain"),
    "http502_html": (502, "<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html"),
    "http503_json": (503, '{"error": "temporarily_unavailable"}', "application/json"),
    "http429": (429, '{"error": "rate_limited", "retry_after": 30}', "application/json"),
    "html_200": (200, "<!doctype html><title>Login</title>", "text/html"),
    "empty_200": (200, "", "application/json"),
    "empty_500": (500, "", "text/plain"),
    "one_megabyte_200": (200, "x" * MB, "text/plain"),
    "one_megabyte_500": (500, "y" * MB, "text/plain"),
    "invalid_utf8_200": (
        200,
        b'{"access_token": "\xff\xfe", "user_code": "\xff", "device_code": "\xfe"}',
        "application/json",
    ),
    "invalid_utf8_500": (500, b"\xff\xfe\xfd broken", "text/plain"),
    "json_list": (200, "[1, 2, 3]", "application/json"),
    "json_string": (200, '"just a string"', "application/json"),
    "json_null": (200, "null", "application/json"),
    "wrong_types": (
        200,
        '{"access_token": 123, "user_code": 5, "device_code": [], "expires_in": "soon"}',
        "application/json",
    ),
    "missing_fields": (200, '{"token_type": "Bearer"}', "application/json"),
    "error_not_string": (400, '{"error": 42}', "application/json"),
    "error_unknown": (400, '{"error": "server_on_fire", "error_description": "boom"}', "application/json"),
    "deep_json": (200, "[" * 100000 + "]" * 100000, "application/json"),
}

SUCCESS_PARSE = {
    "device": "Failed to parse device authorization response: ",
    "poll": "Failed to parse token response: ",
    "refresh": "Failed to parse token refresh response: ",
}


def expected_prefix(endpoint: str, status: int, body: bytes | str) -> str:
    if 200 <= status < 300:
        return SUCCESS_PARSE[endpoint]
    if endpoint == "device":
        return f"Device authorization failed (HTTP {status}): "
    if endpoint == "refresh":
        return f"login expired and refresh failed (HTTP {status}): "
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        code = json.loads(text).get("error")
    except (ValueError, AttributeError):
        code = None
    if isinstance(code, str):
        return f"Token polling error ({code}): "
    return f"Token polling failed (HTTP {status}): "


async def call(endpoint: str, server, home):
    if endpoint == "device":
        return await start_device_authorization("cn")
    if endpoint == "poll":
        return await poll_device_token("dc_unknown", 1, "cn")
    return await get_access_token(None, endpoints("cn").base_url)


PATHS = {"device": DEVICE_PATH, "poll": TOKEN_PATH, "refresh": TOKEN_PATH}


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("endpoint", ["device", "poll", "refresh"])
async def test_fault_gives_spec_message_and_touches_nothing(server, home, endpoint, fault):
    status, body, content_type = FAULTS[fault]
    tokens = server.issue_tokens()
    if endpoint == "refresh":
        write_creds(home, {**tokens, "expires_at": 1, "kept": "yes"})
    before = snapshot(home)
    server.inject(PATHS[endpoint], Fault(status=status, body=body, content_type=content_type))
    with pytest.raises(AuthError) as info:
        await call(endpoint, server, home)
    message = str(info.value)
    assert message.startswith(expected_prefix(endpoint, status, body)), message
    assert len(message) < 600  # excerpts are cut to 200 characters
    for field in ("access_token", "refresh_token"):
        assert tokens[field] not in message
    assert snapshot(home) == before


@pytest.mark.parametrize(
    "interval, polls_before_timeout",
    [(10**12, 1), (2**63, 1), (0, None), (-50, None)],
)
async def test_absurd_intervals(server, home, interval, polls_before_timeout):
    server.inject(
        DEVICE_PATH, status=200, body=json.dumps({"user_code": "U", "device_code": "dc-x", "interval": interval})
    )
    auth = await start_device_authorization("cn")
    assert auth.interval == interval
    if polls_before_timeout is not None:
        server.inject(TOKEN_PATH, status=400, body='{"error": "authorization_pending"}')
        status = await poll_device_token(auth.device_code, auth.interval, "cn")
        assert status.status == "timeout"  # no sleep of 10^12 s: the budget ends it at once
        assert server.count(TOKEN_PATH) == polls_before_timeout
    else:
        seen = []
        server.inject(TOKEN_PATH, status=400, body='{"error": "authorization_pending"}')
        server.inject(TOKEN_PATH, status=400, body='{"error": "access_denied"}')
        status = await poll_device_token(auth.device_code, auth.interval, "cn", on_status=seen.append)
        assert status.status == "access_denied" and seen[0].interval == 1  # clamped to the 1 s minimum


@pytest.mark.parametrize("expires_in", [10**30, -3600, 0])
async def test_absurd_token_lifetimes_are_stored_and_shown(server, home, expires_in):
    from tui.core.slots.state import slot_status
    from tui.core.text.humantime import expiry

    tokens = server.issue_tokens()
    server.inject(TOKEN_PATH, status=200, body=json.dumps({**tokens, "expires_in": expires_in}))
    status = await poll_device_token("dc", 1, "cn")
    assert status.status == "success"
    slot = slot_status("assistant-code")
    assert slot.state == ("valid" if expires_in > 30 else "expired")
    assert expiry(slot.expires_at)  # renders (far future / past) instead of crashing


@pytest.mark.parametrize("endpoint", ["device", "poll", "refresh"])
async def test_connection_reset(server, home, endpoint):
    if endpoint == "refresh":
        write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    before = snapshot(home)
    server.inject(PATHS[endpoint], Fault(mode="reset"))
    with pytest.raises(AuthError) as info:
        await call(endpoint, server, home)
    prefix = {
        "device": "Device authorization request failed: ",
        "poll": "Token polling request failed: ",
        "refresh": "Token refresh request failed: ",
    }
    assert str(info.value).startswith(prefix[endpoint])
    assert snapshot(home) == before


@pytest.mark.parametrize("endpoint", ["device", "poll", "refresh"])
@pytest.mark.parametrize("mode", ["hang", "trickle"])
async def test_hanging_and_trickling_servers_hit_the_budget(server, home, endpoint, mode, fast_timeout):
    if endpoint == "refresh":
        write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    before = snapshot(home)
    body = json.dumps(server.issue_tokens()) if endpoint != "device" else '{"user_code": "U", "device_code": "D"}'
    server.inject(PATHS[endpoint], Fault(mode=mode, status=200, body=body, delay=0.05))
    started = time.monotonic()
    with pytest.raises(AuthError) as info:
        await call(endpoint, server, home)
    took = time.monotonic() - started
    assert str(info.value).endswith(f"timed out after {fast_timeout:g} s"), str(info.value)
    assert took >= fast_timeout - 0.1  # never before the budget; the message says the budget ended it
    assert snapshot(home) == before


async def test_real_ten_second_timeout(server, home):
    """One case with the real budget of spec 8: a server that accepts and never answers."""
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    server.inject(TOKEN_PATH, Fault(mode="hang"))
    started = time.monotonic()
    with pytest.raises(AuthError) as info:
        await get_access_token(None, endpoints("cn").base_url)
    assert str(info.value) == "Token refresh request failed: timed out after 10 s"  # the budget ended it…
    assert time.monotonic() - started >= 9.9  # …and not before its 10 s (a lower bound: load only adds)
    assert server.count(TOKEN_PATH) == 1  # one request, given up on: never retried within the budget


async def test_connection_refused(home, monkeypatch):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_CN", f"http://127.0.0.1:{port}")
    with pytest.raises(AuthError, match=r"^Device authorization request failed: ConnectError"):
        await start_device_authorization("cn")
