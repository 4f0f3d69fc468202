"""A refresh is never spent unless its answer can be kept: the room for the answer is proved
before the request is sent (under a file-size limit nothing is sent and the sign-in is kept),
and an answer that still cannot be written is never reported as success."""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
from collections.abc import Callable

import httpx
import pytest
import respx

from tests.cli.test_cli import SCRIPT, expired
from tests.commands import run_command
from tests.conftest import CN_BASE, CN_HOST, default_signals, read_json, tmpfs, write_creds
from tui.core import AuthError, get_access_token
from tui.core.files.atomic import Reserved
from tui.demo.server import TOKEN_PATH, Fault

SLOT = "assistant-code"
LIMIT = 8192  # bytes: room for the slot as it is, not for the reservation beside it


def limited(limit: int = LIMIT) -> Callable[[], None]:
    def apply() -> None:
        default_signals()
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def token_under_a_size_limit(limit: int = LIMIT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [SCRIPT, "token"], capture_output=True, text=True, env=os.environ.copy(), timeout=60, preexec_fn=limited(limit)
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
    again = run_command(["token"], env=os.environ.copy(), timeout=60)
    assert again.returncode == 0 and refreshes(server) == 1  # the kept refresh token still works


def large_rotation() -> str:
    """A valid rotation whose access token is a large JWT's size (24,000 characters)."""
    return json.dumps(
        {"access_token": "a" * 24000, "refresh_token": "rt_rotated", "expires_in": 3600, "token_type": "Bearer"}
    )


def test_a_large_answer_is_provided_for_or_nothing_is_sent(home, server):
    """Under a 20 KiB file-size limit a valid rotation with a 24,000-character access token could
    not be stored (it was sent, then lost: the person signed out). The room proved before sending
    covers the largest answer read, so the request is not sent and the sign-in is kept."""
    path = write_creds(home, expired(server))
    before = path.read_bytes()
    server.inject(TOKEN_PATH, status=200, body=large_rotation())
    result = token_under_a_size_limit(20 * 1024)
    assert result.returncode == 3, result.stderr
    assert "nothing was sent, your sign-in is kept" in result.stderr
    assert refreshes(server) == 0 and path.read_bytes() == before
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_the_same_large_answer_is_stored_where_there_is_room(home, server):
    path = write_creds(home, expired(server))
    server.inject(TOKEN_PATH, status=200, body=large_rotation())
    result = run_command(["token"], env=os.environ.copy(), timeout=60)
    assert result.returncode == 0, result.stderr
    stored = read_json(path)
    assert stored["access_token"] == "a" * 24000 and stored["refresh_token"] == "rt_rotated"
    assert result.stdout.strip() == "a" * 24000


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
    result = run_command(["token"], env=os.environ.copy(), timeout=60)
    assert result.returncode == 3
    assert result.stderr.startswith(f"login expired and refresh failed (HTTP {status}): busy")
    assert "sign in again" not in result.stderr.lower()
    assert "the stored tokens are kept; retry" in result.stderr


@pytest.fixture
def tiny_filesystem(tmp_path):
    """A 2 MiB tmpfs: room for the slot and one reservation (`limits.room_for_answer`), not two
    (root only; skipped where mounting is not allowed)."""
    with tmpfs(tmp_path / "tiny", "2m") as where:
        yield where


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
    done = run_command(["token"], env=os.environ.copy(), timeout=60)
    assert done.returncode == 3, done.stderr
    assert "No space left on device" in done.stderr and "nothing was sent, your sign-in is kept" in done.stderr
    assert (
        "a refresh first needs 1.0 MiB beside it" in done.stderr and "KiB is free there" in done.stderr
    )  # as df counts
    assert "Free at least 1.0 MiB on that file system" in done.stderr
    assert refreshes(server) == 0 and path.read_bytes() == before
    filler.unlink()  # room again: the kept refresh token works
    again = run_command(["token"], env=os.environ.copy(), timeout=60)
    assert again.returncode == 0 and again.stdout.strip() == server.issued[-1][0] and refreshes(server) == 1


# -- the room is tied to the answer: what is stored never outgrows it --------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from tui.core.credentials.oauth import parse_token_response  # noqa: E402
from tui.core.credentials.slot import dump, merge_token_response  # noqa: E402
from tui.core.spec.limits import ANSWER_BODY, TOKEN_FIELDS, room_for_answer  # noqa: E402

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
token_text = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=60)
any_text = st.text(max_size=60)  # control characters, non-ASCII, lone surrogates


@settings(max_examples=300, deadline=None)
@given(
    current=st.dictionaries(st.text(max_size=12), json_values, max_size=6),
    access=token_text,
    refresh=st.none() | any_text,
    scope=st.none() | any_text,
    token_type=st.none() | any_text,
    expires_in=st.none() | st.integers(min_value=-(10**30), max_value=10**30),
    extra=st.dictionaries(st.text(max_size=8), json_values, max_size=3),
    ascii_only=st.booleans(),
)
def test_what_is_stored_never_outgrows_the_room(
    current, access, refresh, scope, token_type, expires_in, extra, ascii_only
):
    """The room's arithmetic (limits.room_for_answer): the file as merged with any answer is at
    most today's file as written again, plus the answer's own bytes, plus the fields' punctuation;
    so an answer of the largest size read always fits the room proved for it."""
    answer = {**extra, "access_token": access}
    for name, value in (
        ("refresh_token", refresh),
        ("scope", scope),
        ("token_type", token_type),
        ("expires_in", expires_in),
    ):
        if value is not None:
            answer[name] = value
    body = json.dumps(answer, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    try:
        tokens = parse_token_response(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return  # not an answer that is stored
    stored_now = len(dump(current))
    stored = dump(merge_token_response(dump(current).decode("utf-8", "surrogatepass"), tokens))
    assert len(stored) <= stored_now + len(body) + TOKEN_FIELDS
    assert room_for_answer(stored_now) >= stored_now + ANSWER_BODY + TOKEN_FIELDS
    json.loads(stored)  # and it is JSON the official client reads


def test_a_lone_surrogate_in_an_answer_is_stored_as_its_escape(home):
    """JSON allows `\\ud800`, UTF-8 does not: the answer is stored (as the same escape), never a
    UnicodeEncodeError after the refresh was sent."""
    tokens = parse_token_response('{"access_token": "at", "refresh_token": "rt\\ud800x"}')
    data = dump(merge_token_response("", tokens))
    assert json.loads(data)["refresh_token"] == "rt\ud800x"
