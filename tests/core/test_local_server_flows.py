"""Whole flows against the project's own authorization server on 127.0.0.1 (no mocks)."""

import asyncio
import os
import subprocess
import sys
import textwrap
import time

import pytest

from tests.conftest import read_json, write_creds
from tests.toml import tomllib
from tui.core import (
    MANAGED_PROVIDER,
    AuthError,
    Region,
    endpoints,
    get_access_token,
    poll_device_token,
    refresh_access_token,
    start_device_authorization,
)
from tui.demo.server import DEVICE_PATH, TOKEN_PATH


@pytest.mark.parametrize("region", [Region.CN, Region.GLOBAL])
async def test_full_sign_in_with_browser_approval(server, home, region):
    auth = await start_device_authorization(region)
    assert auth.verification_uri == server.url + "/device"
    assert auth.verification_uri_complete.endswith("user_code=" + auth.user_code.replace("-", "-"))
    statuses = []

    def approve_after_the_first_poll(status) -> None:  # the event itself, never a clock
        statuses.append(status)
        if len(statuses) == 1:
            assert server.approve(auth.user_code)

    status = await poll_device_token(auth.device_code, auth.interval, region, on_status=approve_after_the_first_poll)
    assert status.status == "success"
    assert statuses and all(s.status == "pending" for s in statuses)
    # identity headers on device authorization and on every device-grant poll
    for request in server.requests(DEVICE_PATH) + server.requests(TOKEN_PATH):
        assert request.headers.get("X-Vendor-Device-Id")
    ep = endpoints(region)
    config = tomllib.loads((home / "config.toml").read_text())
    entry = config["providers"][MANAGED_PROVIDER]
    assert entry["base_url"] == ep.base_url
    key = entry["oauth"]["key"]
    name = "assistant-code" if key == "oauth/assistant-code" else key.removeprefix("oauth/")
    if region is Region.GLOBAL:
        assert name.startswith("assistant-code-env-") and entry["oauth"]["oauthHost"] == ep.oauth_host
    else:
        assert name == "assistant-code" and "oauthHost" not in entry["oauth"]
    creds = read_json(home / "credentials" / f"{name}.json")
    assert creds["token_type"] == "Bearer" and creds["expires_in"] == 900
    # the stored token is what get_access_token hands out for that provider
    assert await get_access_token(entry["oauth"], entry["base_url"]) == creds["access_token"]


async def test_denied(server):
    auth = await start_device_authorization("cn")
    server.deny(auth.user_code)
    assert (await poll_device_token(auth.device_code, 1, "cn")).status == "access_denied"


async def test_expired_device_code(server):
    server.device_ttl = 1
    auth = await start_device_authorization("cn")
    status = await poll_device_token(auth.device_code, 1, "cn")
    assert status.status == "expired"


async def test_slow_down_from_server_is_honoured(server):
    server.interval = 3  # the client is told 3 but polls after 1: the server says slow_down
    auth = await start_device_authorization("cn")
    seen = []

    async def approve_later():
        await asyncio.sleep(2.5)
        server.approve(auth.user_code)

    task = asyncio.create_task(approve_later())
    status = await poll_device_token(auth.device_code, 1, "cn", on_status=seen.append)
    await task
    assert status.status == "success"
    assert [s.to_dict() for s in seen[:2]] == [
        {"status": "pending", "interval": 1},
        {"status": "slow_down", "interval": 6},
    ]


async def test_refresh_rotates_and_old_token_is_rejected(server, home):
    tokens = server.issue_tokens()
    path = write_creds(home, {**tokens, "expires_at": int(time.time()) - 1})
    new_access = await get_access_token(None, endpoints("cn").base_url)
    saved = read_json(path)
    assert new_access == saved["access_token"] != tokens["access_token"]
    assert saved["refresh_token"] != tokens["refresh_token"]
    # replaying the used refresh token fails with the spec's message
    write_creds(home, {**tokens, "expires_at": 1})
    with pytest.raises(AuthError) as info:
        await refresh_access_token(None, endpoints("cn").base_url)
    assert str(info.value).startswith("login expired and refresh failed (HTTP 400): ")
    assert "invalid_grant" in str(info.value)


async def test_twenty_tasks_one_refresh_request(server, home):
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    base = endpoints("cn").base_url
    results = await asyncio.gather(*(get_access_token(None, base) for _ in range(20)))
    assert len(set(results)) == 1
    assert server.count(TOKEN_PATH, "refresh_token") == 1


CHILD = textwrap.dedent(
    """
    import asyncio, sys, time
    from tui.core import get_access_token
    start = float(sys.argv[1])
    async def main():
        while time.time() < start:
            await asyncio.sleep(0.005)
        tokens = await asyncio.gather(*(get_access_token(None, sys.argv[2]) for _ in range(20)))
        print(len(set(tokens)), tokens[0][:12])
    asyncio.run(main())
    """
)


async def test_four_processes_and_twenty_tasks_one_refresh_request(server, home):
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    base = endpoints("cn").base_url
    start = time.time() + 1.5
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(start), base],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=os.environ.copy(),
        )
        for _ in range(4)
    ]
    local = await asyncio.gather(*(get_access_token(None, base) for _ in range(20)))
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
        outputs.append(out.decode().split())
    assert server.count(TOKEN_PATH, "refresh_token") == 1
    prefixes = {o[1] for o in outputs} | {local[0][:12]}
    assert all(o[0] == "1" for o in outputs) and len(prefixes) == 1
    assert not [p for p in (home / "credentials").iterdir() if p.name.endswith(".tmp")]
