"""`assistant-auth ssh`'s command line is read as OpenSSH reads its own: options, the host, more
options after it, `--` or the first other word starting the command; `--relay` anywhere among the
options. (Through a real sshd: the `--` case below and `tests/agent/test_over_ssh.py`.)"""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.agent.openssh import needs_openssh, remote
from tests.cli.test_cli import valid
from tests.commands import run_command
from tests.conftest import write_creds
from tests.waiting import PATIENCE
from tui.cli.agent.ssh_words import OURS, OURS_WITH_VALUE
from tui.core.agent.ssh.sshline import Usage, split


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["host"], ({}, [], "host", [])),
        (["-p", "22", "host", "ls", "-l"], ({}, ["-p", "22"], "host", ["ls", "-l"])),
        (["-p22", "host"], ({}, ["-p22"], "host", [])),
        (["host", "--", "ls", "-l"], ({}, [], "host", ["ls", "-l"])),
        (["-t", "host", "-p", "22", "--", "cmd"], ({}, ["-t", "-p", "22"], "host", ["cmd"])),
        (["host", "-p", "22", "cmd", "-p"], ({}, ["-p", "22"], "host", ["cmd", "-p"])),
        (["--relay", "host"], ({"--relay": ""}, [], "host", [])),
        (["-p", "22", "--relay", "host"], ({"--relay": ""}, ["-p", "22"], "host", [])),
        (["host", "--relay", "cmd"], ({"--relay": ""}, [], "host", ["cmd"])),
        (["--", "host", "cmd"], ({}, [], "host", ["cmd"])),
        (["-o", "--relay", "host"], ({}, ["-o", "--relay"], "host", [])),  # an option's value is its own
        (["--relay", "--account", "work", "host"], ({"--relay": "", "--account": "work"}, [], "host", [])),
        (["--account=work", "-p", "22", "host", "cmd"], ({"--account": "work"}, ["-p", "22"], "host", ["cmd"])),
        (["-p"], ({}, ["-p"], None, [])),
        ([], ({}, [], None, [])),
    ],
)
def test_split_reads_the_command_line_as_openssh_does(args, expected):
    assert split(args, OURS, OURS_WITH_VALUE) == expected


def test_an_unknown_long_option_is_a_usage_error(home):
    with pytest.raises(Usage):
        split(["--rlay", "host"], OURS, OURS_WITH_VALUE)
    with pytest.raises(Usage):
        split(["--account"], OURS, OURS_WITH_VALUE)  # its value is missing
    done = run_command(["ssh", "--rlay", "host"])
    assert done.returncode == 2 and "usage: assistant-auth ssh" in done.stderr


@needs_openssh
def test_double_dash_before_the_command_runs_the_command(laptop, server, sshd, tmp_path):
    """`assistant-auth ssh HOST -- CMD` ran `--` on the server (`bash: --: command not found`)."""
    write_creds(laptop, valid(server))
    server_home = tmp_path / "server-home"
    server_home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ASSISTANT_AUTH_SOCK"}
    done = run_command(
        ["ssh", *sshd.options(), sshd.host, "-o", "LogLevel=ERROR", "--", *remote(server_home, "token")],
        env=env,
        timeout=PATIENCE * 2,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == server.issued[-1][0]
    assert "command not found" not in done.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--account", "work", "host"], "--account and --region go with --relay"),
        (["--region", "cn", "host"], "--account and --region go with --relay"),
        (["--relay", "--account", "../x", "host"], "invalid account name"),
        (["--relay", "--account=a/b", "host"], "invalid account name"),
        (["--relay", "--region", "mars", "host"], "unknown region 'mars'"),
        (["--relay", "--account", "nobody", "host"], "No account named nobody"),  # settled before connecting
    ],
)
def test_ssh_account_needs_the_relay_and_a_valid_name(home, args, said):
    done = run_command(["ssh", *args], timeout=60)
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.strip().splitlines()) <= 2
    assert "ssh:" not in done.stderr  # ssh never started


def test_the_relay_on_the_server_is_started_for_the_account_named():
    from tui.cli.agent.ssh import remote_command

    line = remote_command("/tmp/x.sock", ["true"], relay=True, account="work")
    assert "assistant-auth relay --quiet --account work </dev/null &" in line
    assert "--account" not in remote_command("/tmp/x.sock", ["true"], relay=True)
