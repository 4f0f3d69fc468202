"""`assistant-auth ssh <TAB>` offers the hosts of ~/.ssh/config (and what it includes) and of
known_hosts, as bash-completion does for ssh, and `--relay`; the parsers are pure and tested on
the files' odd corners."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.cli.test_account_cli import complete
from tui.core.agent.ssh.hosts import config_hosts, known_hosts


def test_config_hosts_skip_patterns_and_read_includes():
    text = "Host build-server *.corp\n  HostName x\nHost=gpu-box\n# Host commented\nInclude extra conf.d/*\n"
    assert config_hosts(text) == (["build-server", "gpu-box"], ["extra", "conf.d/*"])


def test_known_hosts_skip_hashed_lines_and_read_ports_and_markers():
    text = (
        "known.example,10.0.0.1 ssh-ed25519 AAA\n|1|abc=|def= ssh-rsa AAA\n"
        "[ported.example]:2222 ssh-ed25519 AAA\n@cert-authority *.corp ssh-rsa AAA\n"
        "@revoked revoked.example ssh-rsa AAA\n# a comment\n"
    )
    assert known_hosts(text) == ["known.example", "10.0.0.1", "ported.example", "revoked.example"]


def test_ssh_tab_offers_hosts_and_relay(home):
    ssh = home.parent / "user-home" / ".ssh"
    ssh.mkdir(parents=True)
    (ssh / "config").write_text("Host build-server *.corp\nInclude extra\n")
    (ssh / "extra").write_text("Host from-include\n")
    (ssh / "known_hosts").write_text("known.example ssh-ed25519 AAA\n|1|x= ssh-rsa AAA\n")
    assert os.environ["HOME"] == str(home.parent / "user-home")
    offered = complete("assistant-auth ssh ", home)
    assert {"build-server", "from-include", "known.example", "--relay"} <= set(offered)
    assert not any("*" in word or word.startswith("|") for word in offered)
    assert complete("assistant-auth ssh --r", home) == ["--relay"]
    assert complete("assistant-auth ssh --relay b", home) == ["build-server"]
    assert complete("assistant-auth ssh build-server ", home) == []  # the remote command: not ours to complete


# -- round 7 #5: completion reads regular files only, without blocking ----------------------------------


def _hosts_in_a_child(home: str) -> subprocess.CompletedProcess:
    """`hosts()` in a process of its own, bounded: a hang is a timeout, never a stuck suite."""
    code = f"from tui.core.agent.ssh.hosts import hosts; print(' '.join(hosts({home!r})))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)


@pytest.mark.parametrize("where", ["config", "known_hosts", "included"])
def test_a_fifo_anywhere_completion_reads_never_blocks(tmp_path, where):
    ssh = tmp_path / ".ssh"
    ssh.mkdir()
    if where == "included":
        (ssh / "config").write_text("Include conf.d/*\nHost real-one\n")
        (ssh / "conf.d").mkdir()
        os.mkfifo(ssh / "conf.d" / "pipe")
        (ssh / "conf.d" / "more").write_text("Host from-include\n")
    elif where == "config":
        os.mkfifo(ssh / "config")
        (ssh / "known_hosts").write_text("known.example ssh-ed25519 AAAA\n")
    else:
        (ssh / "config").write_text("Host real-one\n")
        os.mkfifo(ssh / "known_hosts")
    done = _hosts_in_a_child(str(tmp_path))
    assert done.returncode == 0, done.stderr
    names = done.stdout.split()
    assert names, "the regular files are still read"
    assert "real-one" in names or "known.example" in names


def test_a_huge_known_hosts_is_read_only_so_far(tmp_path):
    ssh = tmp_path / ".ssh"
    ssh.mkdir()
    line = "host-{n}.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{n:040d}\n"
    with open(ssh / "known_hosts", "w") as handle:
        for n in range(60000):  # about 5 MB
            handle.write(line.format(n=n))
    done = _hosts_in_a_child(str(tmp_path))
    names = done.stdout.split()
    assert done.returncode == 0 and "host-0.example" in names
    assert "host-59999.example" not in names  # beyond the first MiB: not read
