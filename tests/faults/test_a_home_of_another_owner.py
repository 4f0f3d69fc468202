"""A first sign-in done with `sudo` (#56 5, 6, 7): `~/.assistant-code` belongs to root, and the
person runs the program as themselves. Tested as a real second user (`nobody`, as CI runs as
root): every command and the wizard name whose the files are and the one command that gives
them back, no traceback, exit 2; a sign-in asks the server for nothing (an approval would be
lost); doctor's advice is one that works (`sudo chown -R "$USER" …`)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

from tests.cli.test_tui_in_tmux import TMUX, Terminal
from tests.conftest import server_env
from tui.demo.server import DEVICE_PATH

NOBODY = 65534
SYSTEM_PYTHON = shutil.which("python3", path="/usr/bin:/usr/local/bin")
SITE = next((p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)), None)
ROOT = pathlib.Path(__file__).resolve().parents[2]


def _readable_by_others(path: pathlib.Path) -> bool:
    """Every directory from / to `path` can be entered by anyone (`nobody` reads the code there)."""
    for part in [path, *path.parents]:
        if not os.stat(part).st_mode & 0o001:
            return False
    return True


pytestmark = pytest.mark.skipif(
    os.geteuid() != 0
    or SYSTEM_PYTHON is None
    or SITE is None
    or shutil.which("setpriv") is None
    or not (_readable_by_others(ROOT) and _readable_by_others(pathlib.Path(SITE))),
    reason="needs root (to be another user), setpriv, a system python3 and a checkout others can read",
)


@pytest.fixture
def person(server):
    """A person's home (theirs) holding `.assistant-code` that a `sudo` sign-in left to root,
    and a command that runs the program as that person."""
    base = pathlib.Path(tempfile.mkdtemp(prefix="aa-person-", dir="/tmp"))
    os.chmod(base, 0o755)
    home = base / "person"
    home.mkdir()
    os.chown(home, NOBODY, NOBODY)
    config = home / ".assistant-code"
    (config / "credentials").mkdir(parents=True, mode=0o700)
    os.chmod(config, 0o700)
    slot = config / "credentials" / "assistant-code.json"
    slot.write_text('{"access_token": "at", "refresh_token": "rt", "expires_at": 1}')
    os.chmod(slot, 0o600)
    env = {
        "HOME": str(home),
        "USER": "nobody",
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "ASSISTANT_CODE_HOME": str(config),
        "ASSISTANT_CLIENT_ID": "test-client",
        "PYTHONPATH": f"{ROOT}:{SITE}",
        "PYTHONDONTWRITEBYTECODE": "1",
        **server_env(server.url),
    }
    wrapper = base / "as-the-person"
    exports = " ".join(f"{name}='{value}'" for name, value in env.items())
    wrapper.write_text(
        f"#!/bin/sh\nexec setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups "
        f'env -i {exports} ASSISTANT_LANG="${{ASSISTANT_LANG:-en}}" {SYSTEM_PYTHON} -m tui.cli "$@"\n'
    )
    os.chmod(wrapper, 0o755)
    try:
        yield wrapper, config
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _run(wrapper: pathlib.Path, *args: str, language: str = "en") -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(wrapper), *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "ASSISTANT_LANG": language},
    )


GIVE_BACK = 'sudo chown -R "$USER" '


@pytest.mark.parametrize(
    "command",
    [
        ["token"],
        ["refresh"],
        ["login", "--no-tui", "--force"],
        ["login", "--no-tui", "--region", "global"],
        ["logout", "--yes"],
    ],
)
def test_every_command_names_the_owner_and_the_command_that_gives_the_files_back(person, server, command):
    wrapper, config = person
    result = _run(wrapper, *command)
    said = result.stdout + result.stderr
    assert result.returncode == 2, said  # something to change first: not "sign in again"
    assert "Traceback" not in said and "unexpected error" not in said
    assert f"{config} belongs to root (uid 0)" in said, said
    assert GIVE_BACK + str(config) in said, said
    assert "sign in first" not in said
    assert server.count(DEVICE_PATH) == 0  # nothing asked of the server: no approval can be lost


def test_status_and_doctor_say_whose_the_files_are_and_advise_sudo(person):
    wrapper, config = person
    status = _run(wrapper, "status")
    assert "Traceback" not in status.stderr
    assert f"{config} belongs to root (uid 0)" in status.stdout and GIVE_BACK + str(config) in status.stdout
    doctor = _run(wrapper, "doctor", "--offline")
    assert doctor.returncode == 1 and "Traceback" not in doctor.stderr
    assert "could not run" not in doctor.stdout
    assert "does not exist yet" not in doctor.stdout  # a directory it cannot see is not a missing one
    assert "chown -R $USER" not in doctor.stdout and "`chown $USER" not in doctor.stdout  # fails without sudo
    assert GIVE_BACK + str(config) in doctor.stdout
    switch = _run(wrapper, "switch", "--region", "global")
    assert switch.returncode != 0 and "Traceback" not in switch.stderr and GIVE_BACK + str(config) in switch.stderr
    fixing = _run(wrapper, "doctor", "--offline", "--fix", "--yes")
    assert "Traceback" not in fixing.stderr and oct(os.stat(config).st_mode & 0o777) == "0o700"


@pytest.mark.skipif(TMUX is None, reason="needs tmux")
def test_the_wizard_says_it_on_home_and_enter_asks_for_no_code(person, server):
    wrapper, config = person
    term = Terminal(program=str(wrapper), size=(100, 30))
    try:
        screen = term.wait_for("Choose the region of your account")
        flat = " ".join(screen.replace("\u2588", " ").split())  # the notice border of each line
        assert "belongs to root (uid 0)" in flat and "sudo chown -R" in flat, screen
        term.keys("Enter")
        screen = term.wait_for("could not be saved")
        flat = " ".join(screen.replace("\u2588", " ").split())  # the notice border of each line
        assert "No code was requested" in flat and "sudo chown -R" in flat and "Traceback" not in flat
        assert server.count(DEVICE_PATH) == 0
        term.keys("q")
        term.wait_for("EXITED=0")
    finally:
        term.close()


def test_in_chinese_too(person):
    wrapper, config = person
    result = _run(wrapper, "token", language="zh-CN")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "把文件归还给自己" in result.stderr and GIVE_BACK + str(config) in result.stderr
    status = _run(wrapper, "status", language="zh-CN")
    assert "属于 root (uid 0)" in status.stdout and GIVE_BACK + str(config) in status.stdout


def test_a_home_others_can_enter_gets_no_advice_that_cannot_work(person):
    """root's directories left enterable (0711, 0755): no `chmod` of them is advised (it fails for
    the person), only the one command that gives them back."""
    wrapper, config = person
    os.chmod(config, 0o711)
    os.chmod(config / "credentials", 0o755)
    for command in (["status"], ["doctor", "--offline"]):
        result = _run(wrapper, *command)
        said = result.stdout + result.stderr
        assert "chmod 700" not in said and "Traceback" not in said, said
        assert GIVE_BACK + str(config) in said


@pytest.fixture
def person_over_ssh(tmp_path, server):
    """A real second user with a login shell (created for this test, removed after), whose
    `~/.assistant-code` a `sudo` sign-in left to root, reached through a real sshd."""
    from tests.agent.openssh import SSHD, SshServer

    if not (os.path.exists(SSHD) and shutil.which("ssh") and shutil.which("useradd") and TMUX):
        pytest.skip("needs OpenSSH, useradd and tmux")
    user = f"aa{os.urandom(3).hex()}"
    subprocess.run(["useradd", "-m", "-s", "/bin/sh", user], check=True, capture_output=True)
    try:
        subprocess.run(["usermod", "-p", "*", user], check=True, capture_output=True)  # no password, not locked
        home = pathlib.Path(f"/home/{user}")
        config = home / ".assistant-code"
        (config / "credentials").mkdir(parents=True, mode=0o700)
        os.chmod(config, 0o700)
        where = pathlib.Path(tempfile.mkdtemp(prefix="aa-sshd-", dir="/tmp")) / "sshd"
        sshd = SshServer(where)
        os.chmod(where.parent, 0o755)  # sshd reads the key file as the user who logs in
        os.chmod(where, 0o755)
        os.chmod(where / "authorized_keys", 0o644)
        try:
            yield sshd, user, config
        finally:
            sshd.stop()
            shutil.rmtree(where.parent, ignore_errors=True)
    finally:
        subprocess.run(["userdel", "-r", "-f", user], capture_output=True)


def test_over_ssh_the_wizard_says_whose_the_home_is_and_enter_asks_for_no_code(person_over_ssh, server):
    sshd, user, config = person_over_ssh
    env = " ".join(
        f"{name}={value}"
        for name, value in {
            "ASSISTANT_CODE_HOME": config,
            "ASSISTANT_CLIENT_ID": "test-client",
            "ASSISTANT_LANG": "en",
            "PYTHONPATH": f"{ROOT}:{SITE}",
            "PYTHONDONTWRITEBYTECODE": "1",
            "TERM": "xterm-256color",
            **server_env(server.url),
        }.items()
    )
    remote = f"env {env} {SYSTEM_PYTHON} -m tui.cli"
    term = Terminal("-t", *sshd.options(), f"{user}@127.0.0.1", remote, size=(100, 30), program="ssh")
    try:
        screen = term.wait_for("Choose the region of your account")
        flat = " ".join(screen.replace("\u2588", " ").split())
        assert "belongs to root (uid 0)" in flat and "sudo chown -R" in flat, screen
        term.keys("Enter")
        screen = term.wait_for("could not be saved")
        flat = " ".join(screen.replace("\u2588", " ").split())
        assert "No code was requested" in flat and "Traceback" not in flat
        assert server.count(DEVICE_PATH) == 0
        term.keys("q")
        term.wait_for("EXITED=0")
    finally:
        term.close()
