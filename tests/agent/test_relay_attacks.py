"""The relay attacked on its own machine: a file system with no room for its write (a few KB of
tmpfs), and a writer killed at any moment. The slot's file is whole and unchanged, or whole and
new; the relay says why in one line; nothing is left behind that a reader could take for it."""

from __future__ import annotations

import json
import os
import pathlib
import random
import signal

import pytest

from tests.agent.conftest import RunningAgent
from tests.cli.test_cli import valid
from tests.commands import run_command
from tests.conftest import needs_root, tmpfs, write_creds
from tui.core.agent.client.relay import Verdict, judge, write_relayed

SLOT = "assistant-code"


@pytest.fixture
def tiny_fs(tmp_path):
    with tmpfs(tmp_path / "tiny", "64k") as where:  # a few KB: the relay's write cannot fit
        yield where


def fill(where: pathlib.Path) -> None:
    """Every byte of the file system taken (the filler stays: the test's fs is dropped after)."""
    with open(where / "filler", "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 1024)
        except OSError:
            pass


@needs_root
def test_the_relay_on_a_full_file_system_keeps_the_file_and_says_why(laptop, server, tiny_fs):
    write_creds(laptop, valid(server))
    home = tiny_fs / "home"
    before = {"access_token": "old-relayed", "refresh_token": "", "expires_in": 0, "token_type": "Bearer"}
    path = write_creds(home, before)
    fill(tiny_fs)
    agent = RunningAgent(os.environ.copy())
    try:
        env = {
            **os.environ,
            "ASSISTANT_CODE_HOME": str(home),
            "ASSISTANT_AUTH_SOCK": agent.path,
            "ASSISTANT_LANG": "en",
        }
        done = run_command(["relay", "--once"], env=env, timeout=120)
    finally:
        agent.stop()
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "unexpected error" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert any("cannot write" in line and "unchanged" in line for line in lines), done.stderr
    assert json.loads(path.read_text()) == before  # whole and unchanged
    assert not [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]  # no temporary file left


def test_a_writer_killed_at_any_moment_leaves_a_whole_file(home, tmp_path):
    """SIGKILL at a random moment of a relay's writes, again and again: the slot's file is always
    one of the contents written, whole, access-only."""
    write_creds(home, {"access_token": "tok-0", "refresh_token": "", "expires_in": 0})
    path = home / "credentials" / f"{SLOT}.json"
    chance = random.Random(6)
    for round_ in range(6):  # each kill leaves the official lock protocol's directory lock: 5 s to go stale
        pid = os.fork()
        if pid == 0:  # the writer
            try:
                number = 0
                while True:
                    number += 1
                    write_relayed(SLOT, f"tok-{round_}-{number}-" + "x" * chance.randrange(0, 4000), 4102444800)
            finally:
                os._exit(0)
        written, target = 0, chance.randrange(1, 8)
        while written < target:  # wait for some writes: the moment of the kill varies
            text = path.read_text()
            written = int(text.split('"tok-')[1].split("-")[1]) if f'"tok-{round_}-' in text else 0
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        text = path.read_text()
        assert judge(text) is Verdict.RELAYED, text[:200]
        assert json.loads(text)["refresh_token"] == ""
