"""The wizard through a real `sshd` on a pseudo-terminal (`ssh -t` in tmux), where keys arrive
together and the screen is the far end's: a burst edits a field in order, and a screen a command
opened goes back to the remote shell on Esc."""

from __future__ import annotations

import os
import shlex
import shutil

import pytest

from tests.agent.openssh import SshServer, needs_openssh
from tests.cli.test_tui_in_tmux import ENV_NAMES, SCRIPT, TMUX
from tests.waiting import until

pytestmark = [
    pytest.mark.skipif(not (TMUX and SCRIPT), reason="needs tmux and the installed console script"),
    needs_openssh,
]


def over_ssh(terminal, sshd: SshServer, *words: str, lang: str = "en", size=(80, 24)):
    settings = [f"{name}={os.environ[name]}" for name in ENV_NAMES if name in os.environ]
    command = shlex.join(["env", *settings, f"ASSISTANT_LANG={lang}", SCRIPT, *words]) + "; echo REMOTE_EXITED=$?"
    return terminal("-t", *sshd.options(), sshd.host, command, program=shutil.which("ssh"), size=size)


@pytest.mark.parametrize("size", [(80, 24), (60, 18)])
def test_a_burst_of_keys_over_ssh_edits_the_field_in_order(terminal, home, tmp_path, size):
    home.mkdir(parents=True, exist_ok=True)
    config = home / "config.toml"
    config.write_text('# mine\n[providers.p]\nbase_url = "https://p.test/v1"\n')
    sshd = SshServer(tmp_path / "sshd")
    try:
        term = over_ssh(terminal, sshd, "config", size=size)
        term.wait_until(lambda s: "https://p.test/v1" in s and "Save" in term.last_line(s), "the provider form")
        term.keys("Tab")
        term.wait_until(lambda s: term.last_line(s).rstrip().endswith("f1 Help"), "a text field's footer")
        term.keys("End", "BSpace", "BSpace", "v", "2")  # one write: one burst through the connection
        term.wait_for("https://p.test/v2")
        term.keys("C-s")
        term.wait_for("Write these changes")
        term.keys("y")
        until(lambda: "https://p.test/v2" in config.read_text(), what="the saved value")
        term.keys("Escape")
        term.wait_for("REMOTE_EXITED=0")  # the screen `config` opened goes back to the remote shell
    finally:
        sshd.stop()
    assert config.read_text() == '# mine\n[providers.p]\nbase_url = "https://p.test/v2"\n'
