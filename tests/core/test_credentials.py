"""Spec 2.1 (file, expiry), 4.6 (merge), 7.2 (load errors); atomic 0600 writes."""

import json
import os
import stat

import pytest

from tests.conftest import read_json, write_creds
from tui.core import (
    AuthError,
    credentials_path,
    is_expired,
    load_credentials,
    merge_token_response,
)
from tui.core.credentials.slot import write_credentials, write_merged

NOW = 1_800_000_000


@pytest.mark.parametrize(
    "creds, expired",
    [
        ({}, False),
        ({"expires_at": None}, False),
        ({"expires_at": NOW + 31}, False),
        ({"expires_at": NOW + 30}, True),  # now >= expires_at - 30
        ({"expires_at": NOW + 29}, True),
        ({"expires_at": NOW}, True),
        ({"expires_at": NOW - 1000}, True),
    ],
)
def test_expiry_rule(creds, expired):
    assert is_expired(creds, now=NOW) is expired


def test_merge_sets_access_token_and_expiry():
    merged = merge_token_response("", {"access_token": "A", "expires_in": 900}, now=NOW)
    assert merged == {"access_token": "A", "expires_in": 900, "expires_at": NOW + 900}


def test_merge_keeps_old_refresh_token_and_unknown_fields():
    current = json.dumps({"access_token": "old", "refresh_token": "R1", "scope": "s", "custom": {"x": 1}})
    merged = merge_token_response(current, {"access_token": "new"}, now=NOW)
    assert merged == {"access_token": "new", "refresh_token": "R1", "scope": "s", "custom": {"x": 1}}


def test_merge_overwrites_present_fields():
    current = json.dumps(
        {"access_token": "old", "refresh_token": "R1", "scope": "a", "token_type": "x", "expires_at": 1}
    )
    response = {"access_token": "new", "refresh_token": "R2", "scope": "b", "token_type": "Bearer", "expires_in": 60}
    merged = merge_token_response(current, response, now=NOW)
    assert merged == {
        "access_token": "new",
        "refresh_token": "R2",
        "scope": "b",
        "token_type": "Bearer",
        "expires_at": NOW + 60,
        "expires_in": 60,
    }


def test_merge_without_expires_in_keeps_old_expiry():
    merged = merge_token_response(
        json.dumps({"access_token": "a", "expires_at": 5, "expires_in": 9}), {"access_token": "b"}, now=NOW
    )
    assert merged["expires_at"] == 5 and merged["expires_in"] == 9


def test_merge_unparsable_starts_empty():
    assert merge_token_response("{not json", {"access_token": "A"}, now=NOW) == {"access_token": "A"}


@pytest.mark.parametrize("text, value", [("[1, 2]", [1, 2]), ('"str"', "str"), ("3", 3), ("null", None)])
def test_merge_non_object_is_returned_unchanged(text, value):
    assert merge_token_response(text, {"access_token": "A"}, now=NOW) == value


def test_load_missing_file(home):
    with pytest.raises(AuthError) as info:
        load_credentials("assistant-code")
    path = home / "credentials" / "assistant-code.json"
    message = str(info.value)
    assert message.startswith(f"credentials not found at {path}: No such file or directory")
    assert "login" in message  # plus an instruction to log in first


@pytest.mark.parametrize(
    "content",
    ["{broken", "[1,2]", '"text"', "{}", '{"access_token": 5}', '{"access_token": "a", "expires_at": "soon"}', ""],
)
def test_load_unparsable(home, content):
    write_creds(home, content)
    with pytest.raises(AuthError) as info:
        load_credentials("assistant-code")
    assert str(info.value).startswith("Failed to parse OAuth credentials: ")


def test_load_invalid_utf8(home):
    path = write_creds(home, "x")
    path.write_bytes(b'{"access_token": "\xff"}')
    with pytest.raises(AuthError, match="^Failed to parse OAuth credentials: "):
        load_credentials("assistant-code")


def test_load_valid(home):
    write_creds(home, {"access_token": "tok", "refresh_token": "r", "expires_at": NOW, "other": [1]})
    assert load_credentials("assistant-code")["other"] == [1]


def test_write_is_pretty_private_and_atomic(home):
    path = write_credentials("assistant-code", {"access_token": "a", "x": 1})
    assert path == credentials_path("assistant-code")
    assert path.read_text() == json.dumps({"access_token": "a", "x": 1}, indent=2) + "\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert sorted(p.name for p in path.parent.iterdir()) == ["assistant-code.json"]  # no temp files


def test_write_with_umask_000_is_still_private(home):
    old = os.umask(0)
    try:
        path = write_credentials("assistant-code", {"access_token": "a"})
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


def test_write_replaces_inode(home):
    path = write_credentials("assistant-code", {"access_token": "a"})
    before = path.stat().st_ino
    write_credentials("assistant-code", {"access_token": "b"})
    assert path.stat().st_ino != before  # renamed over, never truncated in place


def test_write_merged_keeps_unknown_fields(home):
    path = write_creds(home, {"access_token": "old", "refresh_token": "r", "device": "laptop"})
    write_merged("assistant-code", {"access_token": "new", "expires_in": 10}, now=NOW)
    assert read_json(path) == {
        "access_token": "new",
        "refresh_token": "r",
        "device": "laptop",
        "expires_in": 10,
        "expires_at": NOW + 10,
    }


@pytest.mark.parametrize("content", ["{corrupt", "[1]"])
def test_write_merged_moves_corrupt_file_aside(home, content):
    path = write_creds(home, content)
    write_merged("assistant-code", {"access_token": "new"}, now=NOW)
    assert read_json(path) == {"access_token": "new"}
    aside = [p for p in path.parent.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_text() == content
