"""One definition of a usable access token: an answer carrying an unusable one is rejected
before it is stored (device grant and refresh alike, the spec's parse-failure message), and a
stored one counts as needing a refresh on every face."""

from __future__ import annotations

import httpx
import pytest
import respx

from tests.conftest import CN_BASE, CN_HOST, read_json, write_creds
from tui.core import AuthError, get_access_token, poll_device_token
from tui.core.credentials.slot import usable_token
from tui.core.slots.state import EXPIRED, slot_status

TOKEN_URL = CN_HOST + "/api/oauth/token"
BAD = ["a b", "a\nb", "a\x1b[2Jb", "é", ""]


@pytest.mark.parametrize("token", BAD)
@respx.mock
async def test_a_refresh_answer_with_an_unusable_token_is_not_stored(home, token):
    path = write_creds(home, {"access_token": "AT-old", "refresh_token": "RT-old", "expires_at": 1})
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json={"access_token": token, "refresh_token": "RT-2"}))
    with pytest.raises(AuthError) as info:
        await get_access_token({"key": "oauth/assistant-code", "oauthHost": CN_HOST}, CN_BASE)
    assert str(info.value).startswith("Failed to parse token refresh response: field `access_token`")
    assert read_json(path)["access_token"] == "AT-old"


@pytest.mark.parametrize("token", BAD)
@respx.mock
async def test_a_device_grant_answer_with_an_unusable_token_is_not_stored(home, token):
    respx.post(TOKEN_URL).mock(return_value=httpx.Response(200, json={"access_token": token, "refresh_token": "RT-2"}))
    with pytest.raises(AuthError) as info:
        await poll_device_token("dc", 5, "cn")
    assert str(info.value).startswith("Failed to parse token response: field `access_token`")
    assert not (home / "credentials").exists() or not list((home / "credentials").glob("*.json"))


@pytest.mark.parametrize("token", BAD[:-1])
def test_a_stored_unusable_token_needs_a_refresh_on_every_face(home, token):
    write_creds(home, {"access_token": token, "refresh_token": "RT-x", "expires_at": 4102444800})
    status = slot_status("assistant-code")
    assert status.state == EXPIRED and status.usable  # "expired, refreshes on next use", never "valid"
    assert not usable_token(token)


def test_usable_tokens():
    assert usable_token("eyJhbGciOi.abc-_~") and not usable_token(None) and not usable_token(42)
