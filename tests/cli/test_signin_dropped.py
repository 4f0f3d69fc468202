"""A dropped connection never loses a sign-in: the wizard and `login --no-tui` over a real `sshd`
on a pseudo-terminal (`ssh -t` in tmux, the ssh client killed with SIGTERM or SIGKILL) and in a
local window closed under them, with the authorization host by name (`localhost`: global) and by
address (`127.0.0.1`: cn). After the drop the attempt keeps polling on its own, its first polls
resolve the host again (a name goes through the resolver's executor), and approving the code
saves the tokens; the process then ends with status 0 and the record says how it ended."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import time

import pytest

from tests.agent.openssh import SshServer, needs_openssh
from tests.cli.test_signin_survives import alive
from tests.cli.test_tui_in_tmux import ENV_NAMES, SCRIPT, TMUX
from tests.commands import run_command
from tests.conftest import read_json
from tests.waiting import until
from tui.core.spec.keys import DEFAULT_ACCOUNT, account_slot
from tui.core.spec.regions import Region
from tui.demo.server import DEVICE_PATH, TOKEN_PATH

pytestmark = pytest.mark.skipif(not (TMUX and SCRIPT), reason="needs tmux and the installed console script")

HOSTS = {"global": "by name", "cn": "by address"}  # the test server: global is localhost, cn 127.0.0.1
FACES = {"wizard": ("--no-browser",), "cli": ("--no-tui",)}


def record(home, region: str) -> dict:
    try:
        return json.loads((home / "signin" / f"{region}.json").read_text())
    except (OSError, ValueError):
        return {}


def slot_file(home, region: str):
    """The region's own slot (as the test's settings name it)."""
    return home / "credentials" / f"{account_slot(Region(region), DEFAULT_ACCOUNT)}.json"


def show_code(term, face: str, region: str) -> None:
    if face == "cli":
        term.wait_for("Code:")
        return
    term.wait_for("Choose the region of your account")
    term.keys("Enter")  # `--region` preselected it
    term.wait_until(lambda s: "Waiting for you to approve" in s, "the code screen")


def carried_on_and_approved(home, server, region: str, pid: int) -> None:
    """After the drop: the attempt goes on by itself through more than one poll (each a new
    connection to the host), then the approval is saved and the process ends."""
    until(lambda: record(home, region).get("detached"), what="the attempt carrying on without a terminal")
    polls = server.count(TOKEN_PATH)
    until(lambda: server.count(TOKEN_PATH) >= polls + 2, what="two polls without a terminal")
    assert alive(pid), record(home, region)
    server.approve(server.grants()[-1].user_code)
    until(lambda: slot_file(home, region).exists(), what="the saved tokens")
    assert read_json(slot_file(home, region))["access_token"] == server.issued[-1][0]
    until(lambda: not alive(pid), what="the carried-on process ending")
    ended = record(home, region)
    assert ended["state"] == "ended" and ended["outcome"] == "success", ended


def ssh_pid(term) -> int:
    """The ssh client the pane's shell started."""
    shell = term.pane_pid()
    children = subprocess.run(["pgrep", "-P", str(shell), "-x", "ssh"], capture_output=True, text=True).stdout
    return int(children.split()[0])


@needs_openssh
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["kill", "kill-9"])
@pytest.mark.parametrize("region", list(HOSTS), ids=list(HOSTS.values()))
@pytest.mark.parametrize("face", list(FACES))
def test_killing_the_ssh_client_never_loses_the_sign_in(terminal, home, server, tmp_path, face, region, how):
    sshd = SshServer(tmp_path / "sshd")
    try:
        settings = [f"{name}={os.environ[name]}" for name in ENV_NAMES if name in os.environ]
        command = shlex.join(["env", *settings, "ASSISTANT_LANG=en", SCRIPT, "login", "--region", region, *FACES[face]])
        term = terminal("-t", *sshd.options(), sshd.host, command, program=shutil.which("ssh"))
        show_code(term, face, region)
        pid = until(lambda: record(home, region).get("poller_pid"), what="the attempt's record")
        os.kill(ssh_pid(term), how)
        carried_on_and_approved(home, server, region, pid)
    finally:
        sshd.stop()


@pytest.mark.parametrize("region", list(HOSTS), ids=list(HOSTS.values()))
@pytest.mark.parametrize("face", list(FACES))
def test_closing_a_local_window_never_loses_the_sign_in(terminal, home, server, face, region):
    term = terminal("login", "--region", region, *FACES[face])
    show_code(term, face, region)
    pid = until(lambda: record(home, region).get("poller_pid"), what="the attempt's record")
    term.kill_window()
    carried_on_and_approved(home, server, region, pid)


@needs_openssh
def test_the_chinese_wizard_at_60x18_over_ssh_survives_too(terminal, home, server, tmp_path):
    sshd = SshServer(tmp_path / "sshd")
    try:
        settings = [f"{name}={os.environ[name]}" for name in ENV_NAMES if name in os.environ]
        command = shlex.join(["env", *settings, "ASSISTANT_LANG=zh_CN", SCRIPT, "login", "--region", "global"])
        term = terminal("-t", *sshd.options(), sshd.host, command, program=shutil.which("ssh"), size=(60, 18))
        term.wait_for("选择账号所在的地区")
        term.keys("Enter")
        term.wait_for("等待你在浏览器中授权")
        pid = until(lambda: record(home, "global").get("poller_pid"), what="the attempt's record")
        os.kill(ssh_pid(term), signal.SIGTERM)
        carried_on_and_approved(home, server, "global", pid)
    finally:
        sshd.stop()


# -- a sign-in whose poller died is known as such --------------------------------------------------


def poller_killed(terminal, home, server, region: str = "cn") -> tuple[str, int]:
    """A `login --no-tui` shows its code, then its process is killed (nothing can end its record):
    (user code, pid)."""
    term = terminal("login", "--no-tui", "--region", region)
    term.wait_for("Code:")
    pid = until(lambda: record(home, region).get("poller_pid"), what="the attempt's record")
    os.kill(pid, signal.SIGKILL)
    until(lambda: not alive(pid), what="the poller dying")
    return server.grants()[-1].user_code, pid


def run(*args: str) -> subprocess.CompletedProcess:
    return run_command(args, env=os.environ.copy(), timeout=60)


def test_a_sign_in_nobody_polls_is_said_so_and_login_resumes_it(terminal, home, server):
    code, _pid = poller_killed(terminal, home, server)
    said = run("status").stdout
    assert "has nobody polling it (its process ended)" in said and "`assistant-auth login` resumes it" in said
    assert "is waiting for approval" not in said
    doctor = run("doctor", "--json")
    found = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "files.signin.cn")
    assert found["status"] == "warn" and "nobody polls it" in found["finding"]
    server.approve(code)  # approved while nobody polls: saved once a login resumes it
    wizard = terminal("login", "--no-browser")  # straight to the code screen, never Home
    wizard.wait_until(lambda s: "Waiting for you" in s or "Signed in" in s, "the resumed sign-in")
    wizard.wait_for("Signed in as user-1")
    assert read_json(slot_file(home, "cn"))["access_token"] == server.issued[-1][0]
    assert server.count(DEVICE_PATH) == 1  # the same code, resumed


def test_a_wizard_login_picks_a_polled_sign_in_up_at_once(terminal, home, server):
    first = terminal("login", "--no-tui")
    first.wait_for("Code:")
    code = server.grants()[-1].user_code
    wizard = terminal("login", "--no-browser")
    screen = wizard.wait_until(lambda s: "Enter this code there" in s, "the followed code screen")
    assert " ".join(code) in screen
    server.approve(code)
    first.wait_for("Signed in as user-1 · cn")
    wizard.wait_for("Signed in as user-1")
    assert server.count(DEVICE_PATH) == 1


def test_another_account_is_told_how_to_resume_the_abandoned_one(terminal, home, server):
    poller_killed(terminal, home, server)
    refused = run("login", "--no-tui", "--account", "work", "--region", "cn")
    assert refused.returncode == 2
    assert "has nobody polling it (its process ended)" in refused.stderr
    assert "`assistant-auth login` resumes it" in refused.stderr and "--new" in refused.stderr


def test_past_its_deadline_a_sign_in_nobody_polled_has_ended(terminal, home, server):
    server.device_ttl = 4
    poller_killed(terminal, home, server)
    until(lambda: record(home, "cn").get("deadline", 0) < time.time(), what="the deadline")
    said = run("status").stdout
    assert "did not complete: nobody polled it after" in said and "so nothing was saved" in said
    assert "waiting" not in said and "nobody polling" not in said
    fresh = terminal("login", "--no-tui")
    fresh.wait_for("Code:")  # a new attempt: nothing to follow
    assert server.count(DEVICE_PATH) == 2
