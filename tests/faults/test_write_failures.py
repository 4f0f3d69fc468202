"""Every write failure is an error: whatever a command prints on stdout, into a full device or a
closed pipe it ends with exit code 1 and at most one line on stderr, never a traceback, never 0."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.conftest import write_creds
from tui.cli.parser import COMMANDS
from tui.core.config.provider import provision_managed_provider
from tui.core.spec.keys import region_key

PRINTING = [
    ["--version"],
    ["--help"],
    ["-h"],
    ["completion", "bash"],
    ["completion", "zsh"],
    ["completion", "fish"],
    ["status"],
    ["status", "--json"],
    ["token"],
    ["token", "--json"],
    ["token", "--help"],
    ["doctor", "--offline"],
    ["doctor", "--offline", "--json"],
    ["doctor", "--offline", "--report"],
    ["switch", "--region", "cn"],
    ["refresh"],
    ["refresh", "--json"],
    ["exec", "--help"],
] + [[command, "--help"] for command in COMMANDS]


def closed_pipe() -> int:
    read, write = os.pipe()
    os.close(read)
    return write


@pytest.mark.parametrize("sink", ["full", "closed-pipe"])
@pytest.mark.parametrize("args", PRINTING, ids=lambda args: " ".join(args))
def test_output_that_cannot_be_written_is_an_error(home, server, args, sink):
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    provision_managed_provider(region_key("cn"), "cn")
    target = open(os.devnull if sink == "closed-pipe" else "/dev/full", "wb")  # noqa: SIM115
    stdout = closed_pipe() if sink == "closed-pipe" else target.fileno()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", *args],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            env=os.environ.copy(),
        )
    finally:
        target.close()
        if sink == "closed-pipe":
            os.close(stdout)
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) <= 1, done.stderr


def test_login_json_lines_into_a_full_device(home, server):
    server.auto_approve = 0
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", "login", "--no-tui", "--json"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            env=os.environ.copy(),
        )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "cannot write output" in done.stderr
