"""`assistant-auth ssh`'s command line is read as OpenSSH reads its own: options, the host, more
options after it, `--` or the first other word starting the command; `--relay` anywhere among the
options. (Through a real sshd: the `--` case below and `tests/agent/test_over_ssh.py`.)"""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.agent.openssh import needs_openssh, remote
from tests.cli.test_cli import SCRIPT, valid
from tests.conftest import write_creds
from tests.waiting import PATIENCE
from tui.core.agent.sshline import Usage, split


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["host"], (set(), [], "host", [])),
        (["-p", "22", "host", "ls", "-l"], (set(), ["-p", "22"], "host", ["ls", "-l"])),
        (["-p22", "host"], (set(), ["-p22"], "host", [])),
        (["host", "--", "ls", "-l"], (set(), [], "host", ["ls", "-l"])),
        (["-t", "host", "-p", "22", "--", "cmd"], (set(), ["-t", "-p", "22"], "host", ["cmd"])),
        (["host", "-p", "22", "cmd", "-p"], (set(), ["-p", "22"], "host", ["cmd", "-p"])),
        (["--relay", "host"], ({"--relay"}, [], "host", [])),
        (["-p", "22", "--relay", "host"], ({"--relay"}, ["-p", "22"], "host", [])),
        (["host", "--relay", "cmd"], ({"--relay"}, [], "host", ["cmd"])),
        (["--", "host", "cmd"], (set(), [], "host", ["cmd"])),
        (["-o", "--relay", "host"], (set(), ["-o", "--relay"], "host", [])),  # an option's value is its own
        (["-p"], (set(), ["-p"], None, [])),
        ([], (set(), [], None, [])),
    ],
)
def test_split_reads_the_command_line_as_openssh_does(args, expected):
    assert split(args) == expected


def test_an_unknown_long_option_is_a_usage_error(home):
    with pytest.raises(Usage):
        split(["--rlay", "host"])
    done = subprocess.run([SCRIPT, "ssh", "--rlay", "host"], capture_output=True, text=True)
    assert done.returncode == 2 and "usage: assistant-auth ssh" in done.stderr


@needs_openssh
def test_double_dash_before_the_command_runs_the_command(laptop, server, sshd, tmp_path):
    """`assistant-auth ssh HOST -- CMD` ran `--` on the server (`bash: --: command not found`)."""
    write_creds(laptop, valid(server))
    server_home = tmp_path / "server-home"
    server_home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ASSISTANT_AUTH_SOCK"}
    done = subprocess.run(
        [SCRIPT, "ssh", *sshd.options(), sshd.host, "-o", "LogLevel=ERROR", "--", *remote(server_home, "token")],
        capture_output=True,
        text=True,
        env=env,
        timeout=PATIENCE * 2,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == server.issued[-1][0]
    assert "command not found" not in done.stderr
