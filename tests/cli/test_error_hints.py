"""Every error names what to check next, on its own line after the spec's message."""

from __future__ import annotations

import socket
import time

import pytest

from tests.cli.test_cli import expired, run
from tests.conftest import write_creds
from tui.core.spec.hints import (
    damaged_config,
    damaged_file,
    host_setting,
    refused,
    unreachable,
)
from tui.core.spec.settings import DEFAULTS


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_failure_names_the_host_and_the_variable_that_set_it(home, monkeypatch):
    port = closed_port()
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_CN", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ASSISTANT_BASE_URL_CN", f"http://127.0.0.1:{port}/coding/v1")
    write_creds(home, {"access_token": "AT", "refresh_token": "RT", "expires_at": int(time.time()) - 100})
    result = run("token")
    assert result.returncode == 3
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("Token refresh request failed: ")  # the spec's message first
    assert f"Nothing answered at 127.0.0.1:{port} (set by ASSISTANT_OAUTH_HOST_CN" in lines[1]
    assert "assistant-auth doctor" in lines[1]


def test_a_placeholder_host_says_which_variable_to_set(home, monkeypatch):
    monkeypatch.delenv("ASSISTANT_OAUTH_HOST_CN")
    monkeypatch.delenv("ASSISTANT_BASE_URL_CN")
    result = run("login", "--no-tui", "--no-browser", timeout=60)
    assert result.returncode != 0
    host = DEFAULTS["ASSISTANT_OAUTH_HOST_CN"].split("://")[1]
    assert f"{host} is a placeholder: set ASSISTANT_OAUTH_HOST_CN" in result.stderr


def test_rejected_refresh_says_sign_in_again_with_the_region(home, server):
    write_creds(home, expired(server, refresh_token="RT-unknown"))
    result = run("refresh")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("login expired and refresh failed (HTTP ")
    assert lines[0].endswith("sign in again with `assistant-auth login`") and len(lines) == 1  # said once
    from tui.core import Region
    from tui.core.spec.keys import region_storage_name

    write_creds(home, expired(server, refresh_token="RT-unknown"), name=region_storage_name(Region.GLOBAL))
    result = run("refresh", "--region", "global")
    lines = result.stderr.strip().splitlines()  # the spec's message names the global slot's own sign-in, once
    assert lines[0].endswith("sign in again with `assistant-auth login --region global`") and len(lines) == 1


def test_corrupt_credentials_name_the_file_and_inspect(home, server):
    path = write_creds(home, "{not json")
    result = run("token")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith("Failed to parse OAuth credentials")
    assert f"Run `assistant-auth inspect` to look at {path}" in lines[1]


def test_corrupt_config_names_the_file(home, server):
    write_creds(home, {"access_token": "AT", "expires_at": int(time.time()) + 600})
    (home / "config.toml").write_text("[providers\n")
    result = run("status")  # the listing still works, and says what is wrong with the file
    assert "warning: Failed to read assistant config: " in result.stdout
    assert f"Fix {home / 'config.toml'} by hand" in result.stdout
    result = run("switch", "--region", "cn")  # a command that must write it refuses
    assert result.returncode != 0
    assert "Failed to read assistant config: " in result.stderr and f"Fix {home / 'config.toml'}" in result.stderr


@pytest.mark.parametrize("region, name", [("cn", "ASSISTANT_OAUTH_HOST_CN"), ("global", "ASSISTANT_OAUTH_HOST_GLOBAL")])
def test_hint_functions(home, monkeypatch, region, name):
    monkeypatch.setenv(name, "https://auth.corp.test/")
    assert host_setting("https://auth.corp.test/api/oauth/token") == ("auth.corp.test", name, False)
    assert "set by " + name in unreachable("https://auth.corp.test/api/oauth/token")
    assert "set by " + name in refused("https://auth.corp.test/api/oauth/device_authorization")
    assert host_setting("https://elsewhere.test/x") is None
    assert "elsewhere.test" in unreachable("https://elsewhere.test/x")
    assert "assistant-auth inspect" in damaged_file("/x/y.json") and "/x/y.json" in damaged_file("/x/y.json")
    assert "/x/config.toml" in damaged_config("/x/config.toml")


def test_status_says_which_host_is_still_a_placeholder(home, monkeypatch):
    monkeypatch.delenv("ASSISTANT_OAUTH_HOST_GLOBAL")
    result = run("status")
    note = "note: the global authorization host is still a placeholder: set ASSISTANT_OAUTH_HOST_GLOBAL"
    assert note in result.stdout
    assert "the cn authorization host" not in result.stdout
