"""Every subcommand as a real process: real files, the local authorization server, exit codes."""

import json
import os
import subprocess
import time

import pytest

from tests.commands import SCRIPT, run_command
from tests.conftest import read_json, write_creds
from tui.core.spec.keys import region_storage_name
from tui.demo.server import DEVICE_PATH, TOKEN_PATH


def run(*args: str, input: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """The console script as a process of its own (`tests.commands`: forked from a warm Python)."""
    return run_command(args, env=os.environ.copy(), input=input, timeout=timeout)


def valid(server, **extra):
    return {**server.issue_tokens(), "expires_at": int(time.time()) + 600, **extra}


def expired(server, **extra):
    return {**server.issue_tokens(), "expires_at": int(time.time()) - 10, **extra}


def test_console_script_is_installed():
    assert SCRIPT, "the assistant-auth console script is installed by `make test`"


def test_help():
    result = run("--help")
    assert result.returncode == 0 and "token" in result.stdout and "login" in result.stdout
    assert run("token", "--help").returncode == 0


# -- token ------------------------------------------------------------------------------------


def test_token_prints_only_the_token(home, server):
    creds = valid(server)
    write_creds(home, creds)
    result = run("token")
    assert (result.returncode, result.stdout, result.stderr) == (0, creds["access_token"] + "\n", "")
    assert server.count() == 0


def test_token_refreshes_expired_and_writes_back(home, server):
    creds = expired(server)
    path = write_creds(home, creds)
    result = run("token")
    saved = read_json(path)
    assert result.returncode == 0 and result.stdout == saved["access_token"] + "\n"
    assert saved["access_token"] != creds["access_token"] and saved["refresh_token"] != creds["refresh_token"]
    assert server.count(TOKEN_PATH, "refresh_token") == 1
    assert result.stderr == ""


def test_token_missing_credentials(home):
    result = run("token")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("credentials not found at ")


def test_token_no_refresh_token(home, server):
    write_creds(home, {"access_token": "AT-old-secret", "expires_at": 1})
    result = run("token")
    assert result.returncode == 1
    assert result.stderr.strip() == "Kimi-style session has no refresh token; run the official login command"


def test_token_refresh_failure_never_prints_token(home, server):
    write_creds(home, {"access_token": "AT-old-secret", "refresh_token": "RT-not-known", "expires_at": 1})
    result = run("token")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("login expired and refresh failed (HTTP 400): ")
    assert "RT-not-known" not in result.stderr and "AT-old-secret" not in result.stderr


def test_token_for_provider_and_explicit_key(home, server):
    home.mkdir(parents=True, exist_ok=True)
    host = os.environ["ASSISTANT_OAUTH_HOST_GLOBAL"]
    (home / "config.toml").write_text(
        f'[providers.work]\nbase_url = "https://work.test/coding/v1"\noauth = {{ key = "oauth/work", oauthHost = "{host}" }}\n'
    )
    creds = expired(server)
    write_creds(home, creds, name="work")
    result = run("token", "--provider", "work")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == read_json(home / "credentials" / "work.json")["access_token"]
    assert run("token", "--base-url", "https://work.test/coding/v1", "--key", "oauth/work").stdout == result.stdout
    missing = run("token", "--provider", "nope")
    assert missing.returncode == 2 and "No provider named 'nope'" in missing.stderr


@pytest.mark.parametrize("args", [["--bogus"], ["--provider"], ["--key", "k"], ["--provider", "a", "--base-url", "b"]])
def test_token_usage_errors(args):
    result = run("token", *args)
    assert result.returncode == 2 and result.stdout == ""


# -- status -------------------------------------------------------------------------------------


def test_status_lists_slots_without_tokens(home, server):
    creds = valid(server)
    write_creds(home, creds)
    write_creds(home, "{broken", name="other")
    result = run("status")
    assert result.returncode == 0
    assert "* cn: valid" in result.stdout and "other: unparsable" in result.stdout  # led by the region
    assert "credentials/assistant-code.json" in result.stdout
    assert creds["access_token"] not in result.stdout + result.stderr
    assert creds["refresh_token"] not in result.stdout + result.stderr


def test_status_json_schema(home, server):
    write_creds(home, expired(server))
    result = run("status", "--json")
    assert result.returncode == 0  # expired but refreshable: usable
    data = json.loads(result.stdout)
    assert data["selected"] == "assistant-code" and data["usable"] is True
    slot = data["slots"][0]
    assert set(slot) == {
        "name",
        "path",
        "state",
        "usable",
        "refresh_rejected",
        "has_refresh_token",
        "expires_at",
        "scope",
        "token_type",
        "mode",
        "detail",
        "providers",
        "identity",
        "region",
        "link",
        "owner_uid",
    }
    assert slot["state"] == "expired" and slot["mode"] == "0600"
    assert "access_token" not in result.stdout


@pytest.mark.parametrize(
    "content",
    [None, "{broken", {"access_token": "AT-x", "expires_at": 1}],
)
def test_status_exit_1_when_unusable(home, content):
    if content is not None:
        write_creds(home, content)
    result = run("status")
    assert result.returncode == 1


def test_status_for_provider(home, server):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('[providers.p]\nbase_url = "https://x.test"\noauth = { key = "oauth/pslot" }\n')
    write_creds(home, valid(server), name="pslot")
    result = run("status", "--provider", "p", "--json")
    data = json.loads(result.stdout)
    assert result.returncode == 0 and [s["name"] for s in data["slots"]] == ["pslot"]
    assert data["slots"][0]["providers"] == ["p"]


# -- refresh / logout -----------------------------------------------------------------------------


def test_refresh_prints_expiry_not_token(home, server):
    creds = valid(server)
    path = write_creds(home, creds)
    result = run("refresh")
    saved = read_json(path)
    assert result.returncode == 0 and result.stdout.startswith("Refreshed cn: access token expires ")
    assert saved["access_token"] not in result.stdout + result.stderr
    assert saved["refresh_token"] != creds["refresh_token"]
    as_json = run("refresh", "--json")
    assert json.loads(as_json.stdout)["slot"] == "assistant-code"


def test_refresh_failure(home, server):
    write_creds(home, {"access_token": "AT-x", "refresh_token": "RT-bad"})
    result = run("refresh")
    assert result.returncode == 1 and "login expired and refresh failed (HTTP 400)" in result.stderr


def test_logout(home, server):
    path = write_creds(home, valid(server))
    refused = run("logout", input="")
    assert refused.returncode == 2 and path.exists() and "--yes" in refused.stderr
    done = run("logout", "--yes")
    assert done.returncode == 0 and not path.exists()
    again = run("logout", "--yes")
    assert again.returncode == 1 and "Not signed in" in again.stderr


# -- login --no-tui ---------------------------------------------------------------------------------


def test_login_no_tui_success_with_json(home, server):
    server.auto_approve = 1.0
    server.user_code_factory = lambda: "ABCD-EFGH"
    result = run("login", "--no-tui", "--json", "--no-browser")
    assert result.returncode == 0, result.stderr
    assert "ABCD-EFGH" in result.stderr and server.verification_uri() in result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    first, last = events[0], events[-1]
    assert first["event"] == "device_authorization" and first["user_code"] == "ABCD-EFGH"
    assert "device_code" not in first and first["region"] == "cn"
    assert last == {"event": "status", "status": "success"}
    assert (home / "credentials" / "assistant-code.json").exists()
    device_code = server.grants()[0].device_code
    assert device_code not in result.stdout + result.stderr


def test_login_no_tui_global(home, server):
    server.auto_approve = 0.5
    result = run("login", "--no-tui", "--region", "global")
    assert result.returncode == 0, result.stderr
    names = [p.name for p in (home / "credentials").glob("*.json")]
    assert names == [f"{region_storage_name('global')}.json"]


@pytest.mark.parametrize("error, code", [("access_denied", 1), ("expired_token", 1)])
def test_login_no_tui_denied_or_expired(home, server, error, code):
    server.inject(TOKEN_PATH, status=400, body=json.dumps({"error": error}))
    result = run("login", "--no-tui", "--json")
    assert result.returncode == code
    assert (
        json.loads(result.stdout.splitlines()[-1])["status"]
        == {"access_denied": "access_denied", "expired_token": "expired"}[error]
    )


def test_login_no_tui_error_exit_2(home, server):
    server.inject(DEVICE_PATH, status=500, body="down", content_type="text/plain")
    result = run("login", "--no-tui")
    assert result.returncode == 2 and "Device authorization failed (HTTP 500): down" in result.stderr


def test_verbose_logs_http_with_secrets_redacted(home, server):
    server.auto_approve = 0.5
    result = run("-v", "login", "--no-tui")
    assert result.returncode == 0
    assert "POST http://127.0.0.1" in result.stderr and "HTTP 200" in result.stderr
    creds = read_json(home / "credentials" / "assistant-code.json")
    for secret in (creds["access_token"], creds["refresh_token"], server.grants()[0].device_code):
        assert secret not in result.stderr and secret not in result.stdout
    expired_creds = expired(server)
    write_creds(home, expired_creds)
    verbose_token = run("-v", "token")
    new = read_json(home / "credentials" / "assistant-code.json")
    assert "refresh_token" in verbose_token.stderr  # the form was logged ...
    for secret in (expired_creds["refresh_token"], new["refresh_token"], new["access_token"]):
        assert secret not in verbose_token.stderr  # ... with its values redacted


def test_demo_runs_without_touching_real_home(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSISTANT_CODE_HOME")
    result = run("demo", "--no-tui", "--approve-after", "0.5")
    assert result.returncode == 0, result.stderr
    assert "Signed in as user-1 · cn." in result.stderr and "approve by hand at http://127.0.0.1" in result.stderr
    assert not (tmp_path / "user-home" / ".assistant-code").exists()
