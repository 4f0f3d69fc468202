"""Approved tokens are never thrown away (#56 7): when the slot's file cannot be written after
the person approved (a file put in its way after the check made before the code), the tokens are
kept in a private place of theirs and the next sign-in of that slot saves them without a code."""

from __future__ import annotations

import json
import os
import stat

from tests.conftest import read_json
from tui.core.signin import kept
from tui.core.signin.attempt import SignIn
from tui.core.spec.regions import Region
from tui.demo.server import DEVICE_PATH

SLOT = "assistant-code"


async def test_a_save_that_fails_after_approval_keeps_the_tokens_and_the_next_sign_in_saves_them(
    home, server, monkeypatch, tmp_path
):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    attempt = SignIn(Region.CN)
    auth = await attempt.request_code()
    slot = home / "credentials" / f"{SLOT}.json"
    slot.mkdir(parents=True)  # in the way, after the check made before the code
    server.approve(auth.user_code)
    outcome = await attempt.poll()
    assert not outcome.success and outcome.error is not None
    where = runtime / "assistant-auth-approved" / kept._name(SLOT)
    assert str(where) in outcome.error and "without a new code" in outcome.error
    assert stat.S_IMODE(os.stat(where).st_mode) == 0o600 and stat.S_IMODE(os.stat(where.parent).st_mode) == 0o700
    issued = server.issued[-1][0]
    assert issued not in outcome.error  # where they are, never what they are
    slot.rmdir()  # the person fixed it
    again = SignIn(Region.CN)
    result = await again.run()
    assert result.success, result
    assert server.count(DEVICE_PATH) == 1  # no new code was asked for
    assert read_json(slot)["access_token"] == issued
    assert not where.exists()  # saved: nothing is left behind


def test_what_is_kept_is_read_only_from_a_private_place_of_ours(home, monkeypatch, tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    tokens = {"access_token": "at", "refresh_token": "rt", "expires_in": 3600}
    path = kept.keep(tokens, SLOT, now=1000.0)
    assert path is not None
    assert kept.kept(SLOT, now=1100.0)["expires_in"] == 3500  # counted from the approval
    assert kept.kept(SLOT, now=1000.0 + kept.LIFETIME + 1) is None  # a day old: not offered
    os.chmod(os.path.dirname(path), 0o755)  # others could look in: not trusted
    assert kept.kept(SLOT, now=1100.0) is None
    os.chmod(os.path.dirname(path), 0o700)
    os.chmod(path, 0o666)
    assert kept.kept(SLOT, now=1100.0) is None
    os.chmod(path, 0o600)
    record = {"home": str(home), "storage_name": SLOT, "approved_at": 1000.0, "tokens": tokens}
    for other in ({"storage_name": "another-slot"}, {"home": "/another/home"}):
        with open(path, "w") as handle:
            json.dump({**record, **other}, handle)
        assert kept.kept(SLOT, now=1100.0) is None  # another slot's or another home's is not this one's
    kept.forget(SLOT)
    assert not os.path.exists(path)
    monkeypatch.setenv("ASSISTANT_CODE_HOME", str(tmp_path / "another-home"))
    assert kept.keep(tokens, SLOT) != path  # another home keeps its own
