"""Spec 1 (regions, hint parsing) and the settings read at call time."""

import pathlib

import pytest

from tui.core import (
    Region,
    config_dir,
    config_path,
    credentials_path,
    endpoints,
    parse_region,
)
from tui.core.spec.paths import device_id_path
from tui.core.spec.regions import client_id


@pytest.mark.parametrize(
    "hint, region",
    [
        ("global", Region.GLOBAL),
        ("  GLOBAL \n", Region.GLOBAL),
        ("Global", Region.GLOBAL),
        ("cn", Region.CN),
        ("", Region.CN),
        (None, Region.CN),
        ("globalx", Region.CN),
        ("glo bal", Region.CN),
        ("europe", Region.CN),
    ],
)
def test_parse_region(hint, region):
    assert parse_region(hint) is region


def test_region_values_are_the_spec_words():
    assert Region.CN.value == "cn" and Region.GLOBAL.value == "global"
    assert Region("global") is Region.GLOBAL


def test_endpoints_read_env_at_call_time(monkeypatch):
    assert endpoints(Region.CN).oauth_host == "https://auth.cn.test"
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_CN", "https://other.test///")
    monkeypatch.setenv("ASSISTANT_BASE_URL_GLOBAL", "https://g.test/coding/v1/")
    assert endpoints("cn").oauth_host == "https://other.test"
    assert endpoints("global").base_url == "https://g.test/coding/v1"


def test_placeholder_defaults_end_in_coding_v1(monkeypatch):
    for name in (
        "ASSISTANT_OAUTH_HOST_CN",
        "ASSISTANT_BASE_URL_CN",
        "ASSISTANT_BASE_URL_GLOBAL",
        "ASSISTANT_CLIENT_ID",
    ):
        monkeypatch.delenv(name)
    assert endpoints(Region.CN).base_url.endswith("/coding/v1")
    assert endpoints(Region.GLOBAL).base_url.endswith("/coding/v1")
    assert ".example" in endpoints(Region.CN).oauth_host
    assert client_id()


def test_paths_follow_assistant_code_home(home, monkeypatch, tmp_path):
    assert config_dir() == home
    assert credentials_path("assistant-code") == home / "credentials" / "assistant-code.json"
    assert config_path() == home / "config.toml"
    assert device_id_path() == home / "device_id"
    monkeypatch.setenv("ASSISTANT_CODE_HOME", str(tmp_path / "elsewhere"))
    assert config_dir() == tmp_path / "elsewhere"


def test_default_config_dir_is_in_home(monkeypatch, tmp_path):
    monkeypatch.delenv("ASSISTANT_CODE_HOME")
    assert config_dir() == pathlib.Path(str(tmp_path / "user-home")) / ".assistant-code"
