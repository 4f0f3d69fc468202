"""Spec 4.3: get_access_token / refresh_access_token, the re-read rules and single flight (respx)."""

import asyncio
import json
import threading
import time

import httpx
import pytest
import respx

from tests.conftest import CN_BASE, CN_HOST, GLOBAL_HOST, read_json, write_creds
from tui.core import AuthError, OAuthRef, get_access_token, refresh_access_token
from tui.core.credentials.refresh import NO_REFRESH_TOKEN, read_valid_token

TOKEN_URL = CN_HOST + "/api/oauth/token"


def expired(**extra):
    return {"access_token": "AT-old", "refresh_token": "RT-old", "expires_at": int(time.time()) - 5, **extra}


def valid(token="AT-valid", **extra):
    return {"access_token": token, "refresh_token": "RT-valid", "expires_at": int(time.time()) + 600, **extra}


NEW = {"access_token": "AT-new", "refresh_token": "RT-new", "expires_in": 900, "token_type": "Bearer"}


@respx.mock
async def test_valid_token_returned_without_http(home):
    write_creds(home, valid())
    route = respx.post(TOKEN_URL)
    assert await get_access_token(None, CN_BASE) == "AT-valid"
    assert read_valid_token(None, CN_BASE) == "AT-valid"
    assert not route.called


@respx.mock
async def test_no_expires_at_is_not_expired(home):
    write_creds(home, {"access_token": "AT-forever"})
    assert await get_access_token(None, CN_BASE) == "AT-forever"


async def test_missing_file_is_an_error(home):
    with pytest.raises(AuthError, match="^credentials not found at "):
        await get_access_token(None, CN_BASE)


async def test_unparsable_file_is_an_error(home):
    write_creds(home, "{nope")
    with pytest.raises(AuthError, match="^Failed to parse OAuth credentials: "):
        await get_access_token(None, CN_BASE)
    assert (home / "credentials" / "assistant-code.json").read_text() == "{nope"


@respx.mock
async def test_expired_token_is_refreshed_and_merged(home):
    path = write_creds(home, expired(custom="keep"))
    route = respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json=NEW))
    assert await get_access_token(None, CN_BASE) == "AT-new"
    request = route.calls.last.request
    assert dict(httpx.QueryParams(request.content.decode())) == {
        "grant_type": "refresh_token",
        "client_id": "test-client",
        "refresh_token": "RT-old",
    }
    assert not any(h.lower().startswith("x-vendor-") for h in request.headers)  # no identity headers on refresh
    saved = read_json(path)
    assert saved["access_token"] == "AT-new" and saved["refresh_token"] == "RT-new" and saved["custom"] == "keep"
    assert saved["expires_at"] >= int(time.time()) + 890


@respx.mock
async def test_refresh_keeps_old_refresh_token_when_not_rotated(home):
    path = write_creds(home, expired())
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json={"access_token": "AT-2"}))
    assert await get_access_token(None, CN_BASE) == "AT-2"
    assert read_json(path)["refresh_token"] == "RT-old"


@respx.mock
async def test_scoped_ref_uses_its_host_and_slot(home):
    ref = OAuthRef(key="oauth/custom", oauth_host=GLOBAL_HOST)
    path = write_creds(home, expired(), name="custom")
    route = respx.post(GLOBAL_HOST + "/api/oauth/token").mock(return_value=httpx.Response(200, json=NEW))
    assert await get_access_token(ref, "https://whatever.test") == "AT-new"
    assert route.called and read_json(path)["access_token"] == "AT-new"


@pytest.mark.parametrize("creds", [expired(refresh_token=""), {"access_token": "a", "expires_at": 1}])
async def test_no_refresh_token(home, creds):
    write_creds(home, creds)
    with pytest.raises(AuthError) as info:
        await get_access_token(None, CN_BASE)
    assert (
        str(info.value) == NO_REFRESH_TOKEN == "Kimi-style session has no refresh token; run the official login command"
    )


@respx.mock
async def test_refresh_http_failure(home):
    path = write_creds(home, expired())
    body = json.dumps({"error": "invalid_grant", "detail": "z" * 300})
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(400, text=body))
    with pytest.raises(AuthError) as info:
        await get_access_token(None, CN_BASE)
    message = str(info.value)
    assert message.startswith(f"login expired and refresh failed (HTTP 400): {body[:200]}")
    assert "sign in again" in message
    assert read_json(path)["refresh_token"] == "RT-old"  # untouched


@respx.mock
async def test_refresh_error_body_echoing_the_token_is_redacted(home):
    write_creds(home, expired())
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(400, text="bad token RT-old for AT-old"))
    with pytest.raises(AuthError) as info:
        await get_access_token(None, CN_BASE)
    assert "RT-old" not in str(info.value) and "AT-old" not in str(info.value)


@respx.mock
async def test_refresh_transport_failure(home):
    write_creds(home, expired())
    respx.post(TOKEN_URL).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(AuthError) as info:
        await get_access_token(None, CN_BASE)
    assert str(info.value) == "Token refresh request failed: ConnectError: refused"


@pytest.mark.parametrize("body", ["nope", "[]", '{"access_token": 3}', '{"refresh_token": "x"}'])
@respx.mock
async def test_refresh_unparsable_response(home, body):
    write_creds(home, expired())
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, text=body))
    with pytest.raises(AuthError, match="^Failed to parse token refresh response: "):
        await get_access_token(None, CN_BASE)


@respx.mock
async def test_newer_token_written_meanwhile_wins_and_is_not_overwritten(home):
    path = write_creds(home, expired())

    def official_cli_refreshes_meanwhile(request):
        write_creds(home, valid("AT-official", refresh_token="RT-official"))
        return httpx.Response(200, json=NEW)

    respx.post(TOKEN_URL).mock(side_effect=official_cli_refreshes_meanwhile)
    assert await get_access_token(None, CN_BASE) == "AT-official"
    assert read_json(path)["refresh_token"] == "RT-official"  # not overwritten


@respx.mock
async def test_expired_file_written_meanwhile_is_merged(home):
    path = write_creds(home, expired())

    def rewrite(request):
        write_creds(home, expired(access_token="AT-other", note="added"))
        return httpx.Response(200, json=NEW)

    respx.post(TOKEN_URL).mock(side_effect=rewrite)
    assert await get_access_token(None, CN_BASE) == "AT-new"
    saved = read_json(path)
    assert saved["access_token"] == "AT-new" and saved["note"] == "added"


@respx.mock
async def test_refreshed_under_lock_is_reused(home):
    """Re-read under the lock: if another caller refreshed meanwhile, no request at all."""
    from tui.core.credentials.locks import hold_slot

    write_creds(home, expired())
    route = respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json=NEW))
    async with hold_slot("assistant-code"):
        task = asyncio.create_task(get_access_token(None, CN_BASE))
        await asyncio.sleep(0.05)
        write_creds(home, valid("AT-by-other"))
    assert await task == "AT-by-other"
    assert not route.called


@respx.mock
async def test_write_failure_is_never_success(home, monkeypatch, caplog):
    """(Was "non-fatal": the token was returned and the rotation lost. Hardening round 4: the
    answer is retried within the critical section, then reported as lost, never as success.)"""
    import tui.core.credentials.refresh as tokens

    write_creds(home, expired())
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json=NEW))

    def fail(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tokens, "write_merged", fail)
    monkeypatch.setattr(tokens, "WRITE_TRIES", 2)
    with caplog.at_level("WARNING"), pytest.raises(AuthError, match="could not be written .No space left on device."):
        await get_access_token(None, CN_BASE)
    assert "No space left on device" in caplog.text
    assert "AT-new" not in caplog.text and "RT-new" not in caplog.text


@pytest.mark.parametrize(
    "creds, call, callers",
    [(expired(), get_access_token, 20), (valid(), refresh_access_token, 10)],
    ids=["expired-get", "forced-refresh"],
)
@respx.mock
async def test_concurrent_callers_one_refresh(home, creds, call, callers):
    write_creds(home, creds)

    async def slow(request):
        await asyncio.sleep(0.1)
        return httpx.Response(200, json=NEW)

    route = respx.post(TOKEN_URL).mock(side_effect=slow)
    results = await asyncio.gather(*(call(None, CN_BASE) for _ in range(callers)))
    assert set(results) == {"AT-new"} and route.call_count == 1


@respx.mock
async def test_forced_refresh_refreshes_valid_token(home):
    write_creds(home, valid())
    route = respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json=NEW))
    assert await refresh_access_token(None, CN_BASE) == "AT-new"
    assert route.call_count == 1


def test_single_flight_across_threads_and_event_loops(home):
    """Threads each running their own event loop share one refresh."""
    write_creds(home, expired())
    calls = []
    lock = threading.Lock()

    def handler(request):
        with lock:
            calls.append(1)
        time.sleep(0.1)
        return httpx.Response(200, json=NEW)

    results = []
    with respx.mock(assert_all_called=False) as mock:
        mock.post(TOKEN_URL).mock(side_effect=handler)

        def worker():
            results.append(asyncio.run(get_access_token(None, CN_BASE)))

        threads = [threading.Thread(target=worker) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert results == ["AT-new"] * 8 and len(calls) == 1


async def test_plain_http_non_loopback_host_is_refused(home):
    write_creds(home, expired())
    with pytest.raises(AuthError) as info:
        await get_access_token({"key": "oauth/assistant-code", "oauthHost": "http://evil.test"}, CN_BASE)
    assert "Refusing to send credentials to http://evil.test/api/oauth/token" in str(info.value)
