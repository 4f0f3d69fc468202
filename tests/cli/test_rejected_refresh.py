"""A refresh the server rejected is remembered (keyed to that refresh token, never the token
itself) until the file's refresh token changes: status, doctor, login and the app say to sign in
again instead of "refreshes on next use". Against the project's local authorization server."""

from __future__ import annotations

import json
import os

import pytest

from tests.cli.test_cli import expired, run, valid
from tests.conftest import write_creds
from tui.core.credentials import rejections
from tui.core.files import ownfiles


def reject(home, server, creds) -> None:
    write_creds(home, creds)
    result = run("refresh")
    assert result.returncode == 1 and "refresh failed" in result.stderr


def test_status_remembers_a_rejected_refresh_until_the_refresh_token_changes(home, server):
    creds = expired(server, refresh_token="RT-revoked-by-the-server")
    reject(home, server, creds)
    record = home / "rejected" / "assistant-code.json"
    assert oct(record.stat().st_mode & 0o777) == "0o600" and oct((home / "rejected").stat().st_mode & 0o777) == "0o700"
    assert "RT-revoked-by-the-server" not in record.read_text()  # a fingerprint, never the token

    result = run("status")
    assert result.returncode == 1
    assert "cn: expired (refresh rejected)" in result.stdout and "refresh token stored" not in result.stdout
    assert "To sign in again (the server rejected the refresh token): assistant-auth login" in result.stdout
    data = json.loads(run("status", "--json").stdout)
    assert data["usable"] is False and data["slots"][0]["refresh_rejected"] is True
    report = json.loads(run("doctor", "--offline", "--json").stdout)
    check = next(c for c in report["checks"] if c["name"] == "credentials.assistant-code")
    assert "rejected its refresh token" in check["finding"] and check["status"] != "ok"

    # the official client signs in again: a new refresh token in the file, and the record is silent
    write_creds(home, expired(server))
    result = run("status", "--json")
    assert json.loads(result.stdout)["slots"][0]["refresh_rejected"] is False and result.returncode == 0
    assert run("refresh").returncode == 0


def test_login_replaces_a_session_whose_refresh_was_rejected_without_force(home, server):
    creds = valid(server, refresh_token="RT-revoked-by-the-server")
    write_creds(home, creds)
    assert run("refresh").returncode == 1  # a forced refresh, rejected: the access token still works
    status = json.loads(run("status", "--json").stdout)["slots"][0]
    assert status["usable"] is True and status["refresh_rejected"] is True
    assert "To sign in again" in run("status").stdout
    server.auto_approve = 0.2
    result = run("login", "--no-tui", "--no-browser", timeout=60)
    assert result.returncode == 0, result.stderr
    assert "the server rejected its refresh token; signing in again." in result.stderr
    assert not (home / "rejected" / "assistant-code.json").exists()  # a new sign-in forgets it
    assert json.loads(run("status", "--json").stdout)["slots"][0]["refresh_rejected"] is False


def test_a_record_speaks_only_for_the_refresh_token_it_was_made_for(home):
    fields = {"access_token": "AT", "refresh_token": "RT-1"}
    rejections.remember("assistant-code", "RT-1", 400, now=1000.0)
    assert rejections.rejected_at("assistant-code", fields) == 1000.0
    assert rejections.rejected_at("assistant-code", {**fields, "refresh_token": "RT-2"}) is None
    assert rejections.rejected_at("assistant-code", {"access_token": "AT"}) is None
    assert rejections.rejected_at("other", fields) is None
    rejections.forget("assistant-code")
    assert rejections.rejected_at("assistant-code", fields) is None


def test_a_link_in_place_of_the_record_directory_is_never_followed(home, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home.mkdir(parents=True, exist_ok=True)
    os.symlink(elsewhere, home / "rejected")
    fields = {"access_token": "AT", "refresh_token": "RT-1"}
    assert rejections.rejected_at("assistant-code", fields) is None
    with pytest.raises(ownfiles.RecordProblem, match="not a plain directory"):
        rejections.remember("assistant-code", "RT-1", 400)
    assert list(elsewhere.iterdir()) == []
