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


def over_ssh(terminal, sshd: SshServer, *words: str, lang: str = "en", size=(80, 24), **extra: str):
    settings = [f"{name}={os.environ[name]}" for name in ENV_NAMES if name in os.environ]
    settings += [f"{name}={value}" for name, value in extra.items()]
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


@pytest.mark.parametrize(
    ("size", "lang"), [((80, 24), "en"), ((60, 18), "en"), ((60, 18), "zh-CN"), ((100, 30), "zh-CN")]
)
def test_the_plain_logins_question_stays_visible_and_an_approval_meanwhile_is_found(
    terminal, home, server, tmp_path, size, lang
):
    """#57 1: after two failed polls in a row `login --no-tui` asks whether to keep polling; the
    once-a-second live line used to redraw over the question, hiding it. Over a real sshd on a
    pseudo-terminal: the question stays on screen while it waits, and a sign-in approved meanwhile
    is found by the first poll after the yes."""
    import time

    from tui.demo.server import TOKEN_PATH

    server.inject(TOKEN_PATH, mode="reset", times=2)  # the server drops two polls in a row: transient
    sshd = SshServer(tmp_path / "sshd")
    try:
        term = over_ssh(terminal, sshd, "login", "--no-tui", "--no-browser", size=size, lang=lang)
        asked = term.wait_for("[y/N]")
        server.approve(server.grants()[-1].user_code)  # approved while the question waits
        polls = server.count(TOKEN_PATH)
        time.sleep(2.5)  # two ticks of the live line: each would have cleared the question's line
        later = term.screen()
        assert "[y/N]" in later, later
        assert later.rstrip().splitlines()[-1] == asked.rstrip().splitlines()[-1]  # nothing drawn under it
        assert server.count(TOKEN_PATH) == polls  # polling waits for the answer
        term.keys("y", "Enter")
        term.wait_for("REMOTE_EXITED=0")
    finally:
        sshd.stop()
    assert (home / "credentials" / "assistant-code.json").exists()


@pytest.mark.parametrize(
    ("words", "ready"),
    [
        (("demo",), "Choose the region of your account"),
        (("demo", "--no-tui", "--serve", "--approve-after", "0.3"), "then try:"),
    ],
    ids=["in-the-wizard", "serving"],
)
def test_a_dropped_connection_leaves_no_demo_home(terminal, tmp_path, words, ready):
    """#57 2: the connection dropped (the terminal holding ssh closed) while the demo runs in the
    wizard or serves: its temporary home, tokens included, used to stay behind every time."""
    import glob

    from tests.waiting import until

    private = tmp_path / "tmp"  # the demo's own TMPDIR: another test's demo home never shows up here
    private.mkdir()
    pattern = os.path.join(private, "assistant-auth-demo-*")
    before = set(glob.glob(pattern))
    sshd = SshServer(tmp_path / "sshd")
    try:
        term = over_ssh(terminal, sshd, *words, TMPDIR=str(private))
        term.wait_for(ready)
        made = set(glob.glob(pattern)) - before
        assert len(made) == 1, made
        home = made.pop()
        term.kill_window()  # ssh loses its terminal: the connection drops, the demo gets SIGHUP
        until(lambda: not os.path.exists(home), what="the demo's home removed after the drop")
    finally:
        sshd.stop()
