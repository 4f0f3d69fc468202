"""`assistant-auth ssh <TAB>` offers the hosts of ~/.ssh/config (and what it includes) and of
known_hosts, as bash-completion does for ssh, and `--relay`; the parsers are pure and tested on
the files' odd corners."""

from __future__ import annotations

import os

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
