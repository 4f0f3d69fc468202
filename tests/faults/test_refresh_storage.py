"""A refresh is never spent unless its answer can be kept: the room for the answer is proved
before the request is sent (under a file-size limit nothing is sent and the sign-in is kept),
and an answer that still cannot be written is never reported as success."""

from __future__ import annotations

import errno
import os
import resource
import subprocess

import httpx
import pytest
import respx

from tests.cli.test_cli import SCRIPT, expired
from tests.conftest import CN_BASE, CN_HOST, default_signals, read_json, write_creds
from tui.core import AuthError, get_access_token
from tui.core.files.atomic import Reserved
from tui.demo.server import TOKEN_PATH, Fault

SLOT = "assistant-code"
LIMIT = 8192  # bytes: room for the slot as it is, not for the reservation beside it


def limited() -> None:
    default_signals()
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def token_under_a_size_limit() -> subprocess.CompletedProcess:
    return subprocess.run(
        [SCRIPT, "token"], capture_output=True, text=True, env=os.environ.copy(), timeout=60, preexec_fn=limited
    )


def refreshes(server) -> int:
    return server.count(TOKEN_PATH, grant_type="refresh_token")


def test_a_refresh_whose_answer_cannot_be_stored_is_never_sent(home, server):
    path = write_creds(home, expired(server))
    before = path.read_bytes()
    result = token_under_a_size_limit()
    assert result.returncode == 3, result.stderr
    assert f"could not write {path}" in result.stderr and "nothing was sent, your sign-in is kept" in result.stderr
    assert refreshes(server) == 0
    assert path.read_bytes() == before
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]  # the probe is gone
    again = subprocess.run([SCRIPT, "token"], capture_output=True, text=True, env=os.environ.copy(), timeout=60)
    assert again.returncode == 0 and refreshes(server) == 1  # the kept refresh token still works


def test_the_reservation_itself_fails_under_the_limit_and_leaves_nothing(tmp_path):
    target = tmp_path / "slot.json"
    target.write_text("{}")
    code = (
        "import resource, sys, pathlib\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({LIMIT}, {LIMIT}))\n"
        "from tui.core.files.atomic import Reserved\n"
        "try:\n"
        f"    Reserved(pathlib.Path({str(target)!r}), {LIMIT * 2})\n"
        "except OSError as exc:\n"
        "    print(exc.errno)\n"
    )
    import sys

    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=30, preexec_fn=default_signals
    )
    assert out.stdout.strip() == str(errno.EFBIG)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slot.json"]


def test_a_reservation_commits_exactly_the_data(tmp_path):
    target = tmp_path / "slot.json"
    target.write_text("old")
    room = Reserved(target, 4096)
    assert (target.read_text(), os.stat(room.tmp).st_size) == ("old", 4096)
    room.commit(b'{"new": 1}')
    assert target.read_bytes() == b'{"new": 1}' and oct(os.stat(target).st_mode & 0o777) == "0o600"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slot.json"]


TOKENS = {"access_token": "AT-new", "refresh_token": "RT-new", "expires_in": 900, "token_type": "Bearer"}


@respx.mock
async def test_an_answer_that_cannot_be_written_is_never_success(home, monkeypatch):
    path = write_creds(home, {"access_token": "AT-old", "refresh_token": "RT-old", "expires_at": 1})
    route = respx.post(CN_HOST + "/api/oauth/token").mock(return_value=httpx.Response(200, json=TOKENS))

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Reserved, "commit", full)
    monkeypatch.setattr("tui.core.files.atomic.atomic_write", full)
    monkeypatch.setattr("tui.core.credentials.refresh.WRITE_TRIES", 2)
    with pytest.raises(AuthError) as info:
        await get_access_token({"key": "oauth/assistant-code", "oauthHost": CN_HOST}, CN_BASE)
    assert route.call_count == 1
    text = info.value.describe()
    assert "could not be written (No space left on device)" in text and "the stored refresh token is spent" in text
    assert "sign in again" in text and not info.value.transient
    assert "AT-new" not in text and "RT-new" not in text
    assert read_json(path)["refresh_token"] == "RT-old"


@pytest.mark.parametrize("status", [500, 503, 429])
def test_server_trouble_never_says_sign_in_again(home, server, status):
    write_creds(home, expired(server))
    server.inject(TOKEN_PATH, Fault(status=status, body="busy", content_type="text/plain"))
    result = subprocess.run([SCRIPT, "token"], capture_output=True, text=True, env=os.environ.copy(), timeout=60)
    assert result.returncode == 3
    assert result.stderr.startswith(f"login expired and refresh failed (HTTP {status}): busy")
    assert "sign in again" not in result.stderr.lower()
    assert "the stored tokens are kept; retry" in result.stderr


@pytest.fixture
def tiny_filesystem(tmp_path):
    """A 64 KiB tmpfs (root only; skipped where mounting is not allowed)."""
    where = tmp_path / "tiny"
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(where)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tiny filesystem here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def test_on_a_full_filesystem_the_refresh_is_not_sent(server, monkeypatch, tiny_filesystem):
    home = tiny_filesystem / "home"
    monkeypatch.setenv("ASSISTANT_CODE_HOME", str(home))
    path = write_creds(home, expired(server))
    before = path.read_bytes()
    filler = tiny_filesystem / "filler"
    with open(filler, "wb", buffering=0) as handle:  # fill it up, leaving less room than an answer needs
        try:
            while True:
                handle.write(b"\0" * 1024)
                handle.flush()
        except OSError:
            pass
    os.truncate(filler, os.stat(filler).st_size - 4096)
    done = subprocess.run([SCRIPT, "token"], capture_output=True, text=True, env=os.environ.copy(), timeout=60)
    assert done.returncode == 3, done.stderr
    assert "No space left on device" in done.stderr and "nothing was sent, your sign-in is kept" in done.stderr
    assert refreshes(server) == 0 and path.read_bytes() == before
    filler.unlink()  # room again: the kept refresh token works
    again = subprocess.run([SCRIPT, "token"], capture_output=True, text=True, env=os.environ.copy(), timeout=60)
    assert again.returncode == 0 and again.stdout.strip() == server.issued[-1][0] and refreshes(server) == 1
