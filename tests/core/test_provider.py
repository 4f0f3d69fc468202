"""Spec 2.6 and 4.4: the managed provider entry, round-trip through tomlkit."""

import os
import stat

import pytest

from tests.conftest import CN_BASE, GLOBAL_BASE, GLOBAL_HOST, read_json
from tests.toml import tomllib
from tui.core import (
    MANAGED_PROVIDER,
    AuthError,
    Region,
    persist_device_signin,
    provision_managed_provider,
)
from tui.core.spec.keys import region_key

USER_CONFIG = """\
# my settings, hand written
[general]
theme = "dark"   # I like it dark

[providers.openai]
type = "openai"
base_url = "https://api.openai.test/v1"
api_key = "sk-keep-me"

# unrelated trailing table
[telemetry]
enabled = false
"""


def load(home):
    return tomllib.loads((home / "config.toml").read_text())


def test_new_entry_has_all_fields(home):
    provision_managed_provider("oauth/assistant-code", Region.CN)
    entry = load(home)["providers"][MANAGED_PROVIDER]
    assert entry == {
        "name": MANAGED_PROVIDER,
        "type": "assistant",
        "base_url": CN_BASE,
        "api_key": "",
        "enabled": True,
        "active": False,
        "managed": True,
        "note": "",
        "icon": "",
        "oauth": {"storage": "file", "key": "oauth/assistant-code"},
        "env": {},
        "settings": {},
        "usage": {},
    }
    assert stat.S_IMODE((home / "config.toml").stat().st_mode) == 0o600


def test_global_entry_has_oauth_host(home):
    provision_managed_provider(region_key("global"), "global")
    entry = load(home)["providers"][MANAGED_PROVIDER]
    assert entry["base_url"] == GLOBAL_BASE
    assert entry["oauth"] == {"storage": "file", "key": region_key("global"), "oauthHost": GLOBAL_HOST}


def test_existing_entry_keeps_other_fields_and_user_file_survives(home):
    home.mkdir(parents=True)
    text = (
        USER_CONFIG
        + f"""
[providers."{MANAGED_PROVIDER}"]
name = "my name"
icon = "star"   # custom icon
active = true
type = "old"
oauth = {{ storage = "keyring", key = "x", oauthHost = "{GLOBAL_HOST}", extra = 1 }}
"""
    )
    (home / "config.toml").write_text(text)
    provision_managed_provider("oauth/assistant-code", Region.CN)
    after = (home / "config.toml").read_text()
    assert after.startswith(USER_CONFIG)  # byte for byte before the managed entry
    assert 'icon = "star"   # custom icon' in after
    entry = load(home)["providers"][MANAGED_PROVIDER]
    assert entry["name"] == "my name" and entry["active"] is True and entry["icon"] == "star"
    assert entry["type"] == "assistant" and entry["base_url"] == CN_BASE and entry["api_key"] == ""
    assert entry["managed"] is True
    # edited in place: its shape and unknown keys are kept; no host for cn (spec 2.6: only for
    # global), so the stale global host is removed, not rewritten
    assert entry["oauth"] == {"storage": "file", "key": "oauth/assistant-code", "extra": 1}
    assert "env" not in entry  # only a newly created entry gets the empty tables


def test_unrelated_sections_survive_byte_for_byte(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(USER_CONFIG)
    provision_managed_provider("oauth/assistant-code", "cn")
    after = (home / "config.toml").read_text()
    assert after.startswith(USER_CONFIG)
    parsed = load(home)
    assert parsed["providers"]["openai"]["api_key"] == "sk-keep-me" and parsed["telemetry"] == {"enabled": False}


def test_existing_mode_is_kept(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(USER_CONFIG)
    os.chmod(home / "config.toml", 0o640)
    provision_managed_provider("oauth/assistant-code", "cn")
    assert stat.S_IMODE((home / "config.toml").stat().st_mode) == 0o640


@pytest.mark.parametrize("text", ["[broken", "providers = 3\n", f'[providers]\n"{MANAGED_PROVIDER}" = 1\n', "a = \n"])
def test_invalid_config_is_reported_and_untouched(home, text):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(text)
    with pytest.raises(AuthError) as info:
        provision_managed_provider("oauth/assistant-code", "cn")
    assert str(info.value).startswith("Failed to read assistant config: ")
    assert (home / "config.toml").read_text() == text


def test_toml_error_has_line_and_column(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text('ok = 1\nbad = "unterminated\n')
    with pytest.raises(AuthError) as info:
        provision_managed_provider("oauth/assistant-code", "cn")
    assert "line 2" in str(info.value)


def test_unreadable_config(home):
    home.mkdir(parents=True)
    (home / "config.toml").mkdir()
    with pytest.raises(AuthError, match="^Failed to read assistant config: "):
        provision_managed_provider("oauth/assistant-code", "cn")


def test_write_failure(home, monkeypatch):
    import tui.core.config.provider as provider

    def boom(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(provider, "atomic_write", boom)
    with pytest.raises(AuthError) as info:
        provision_managed_provider("oauth/assistant-code", "cn")
    assert str(info.value) == "Failed to write assistant config: Permission denied"


def test_persist_device_signin_cn_and_global(home):
    tokens = {"access_token": "A", "refresh_token": "R", "expires_in": 900}
    assert persist_device_signin(tokens, Region.CN) == "assistant-code"
    name = persist_device_signin(tokens, Region.GLOBAL)
    assert name.startswith("assistant-code-env-") and len(name) == len("assistant-code-env-") + 16
    assert read_json(home / "credentials" / f"{name}.json")["refresh_token"] == "R"
    entry = load(home)["providers"][MANAGED_PROVIDER]
    assert entry["oauth"]["key"] == f"oauth/{name}" and entry["oauth"]["oauthHost"] == GLOBAL_HOST


def test_persist_merges_existing_file(home):
    persist_device_signin({"access_token": "A", "refresh_token": "R", "expires_in": 900}, "cn")
    persist_device_signin({"access_token": "B"}, "cn")
    creds = read_json(home / "credentials" / "assistant-code.json")
    assert creds["access_token"] == "B" and creds["refresh_token"] == "R"


def test_inline_providers_table_gets_an_inline_entry(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text('providers = { other = { type = "x" } }\n')
    provision_managed_provider("oauth/assistant-code", "cn")
    parsed = load(home)
    assert parsed["providers"]["other"] == {"type": "x"}
    assert parsed["providers"][MANAGED_PROVIDER]["managed"] is True


def test_empty_file_gets_just_the_entry(home):
    provision_managed_provider("oauth/assistant-code", "cn")
    assert (home / "config.toml").read_text().startswith(f'[providers."{MANAGED_PROVIDER}"]\n')
