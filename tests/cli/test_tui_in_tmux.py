"""The TUI subcommands in a real terminal: tmux at 80x24, real keys, the installed script."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid

import pytest

from tests.commands import SCRIPT, run_command
from tests.conftest import write_creds
from tests.waiting import PATIENCE, until

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(not (TMUX and SCRIPT), reason="needs tmux and the installed console script")

ENV_NAMES = (
    "ASSISTANT_CODE_HOME",
    "HOME",
    "ASSISTANT_OAUTH_HOST_CN",
    "ASSISTANT_OAUTH_HOST_GLOBAL",
    "ASSISTANT_BASE_URL_CN",
    "ASSISTANT_BASE_URL_GLOBAL",
    "ASSISTANT_CLIENT_ID",
)


class Terminal:
    """A tmux server of its own running `assistant-auth ARGS…` (or `program ARGS…`) in its one pane."""

    def __init__(self, *args: str, size=(80, 24), program: str | None = None):
        self.socket = f"aa-test-{uuid.uuid4().hex[:8]}"
        env_flags = []
        for name in ENV_NAMES:
            if name in os.environ:
                env_flags += ["-e", f"{name}={os.environ[name]}"]
        # COLUMNS/LINES inherited from the test process would override the pane's real size
        command = " ".join(shlex.quote(a) for a in ("env", "-u", "COLUMNS", "-u", "LINES", program or SCRIPT, *args))
        subprocess.run(
            [
                TMUX,
                "-L",
                self.socket,
                "new-session",
                "-d",
                "-x",
                str(size[0]),
                "-y",
                str(size[1]),
                *env_flags,
                f"{command}; echo EXITED=$?; sleep 30",
            ],
            check=True,
        )

    def screen(self) -> str:
        return subprocess.run([TMUX, "-L", self.socket, "capture-pane", "-p"], capture_output=True, text=True).stdout

    def wait_for(self, text: str, timeout: float = PATIENCE) -> str:
        return self.wait_until(lambda screen: text in screen, text, timeout)

    def wait_until(self, predicate, what: str, timeout: float = PATIENCE) -> str:
        """The first capture for which `predicate(screen)` holds: wait for the exact state a test
        asserts, never for a neighbouring one (the footer is drawn after the body)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{what} not on screen:\n{self.screen()}")

    def last_line(self, screen: str) -> str:
        lines = screen.rstrip().splitlines()
        return lines[-1] if lines else ""

    def keys(self, *keys: str) -> None:
        subprocess.run([TMUX, "-L", self.socket, "send-keys", *keys], check=True)

    def pane_pid(self) -> int:
        """The pid of the shell that runs the pane's command (`sh -c "…"`)."""
        shown = subprocess.run(
            [TMUX, "-L", self.socket, "display", "-p", "#{pane_pid}"], capture_output=True, text=True
        )
        return int(shown.stdout)

    def kill_window(self) -> None:
        """The window goes (its pane's processes get SIGHUP), as a person closing it does."""
        subprocess.run([TMUX, "-L", self.socket, "kill-window"], capture_output=True)

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True)


def test_no_arguments_opens_the_wizard_and_signs_in(terminal, server, home):
    term = terminal("--no-browser")
    term.wait_for("Choose the region of your account")
    term.keys("Enter")
    term.wait_for("Enter this code there")
    screen = term.wait_until(
        lambda s: "Copy code" in s and " answered · " in s.replace("\xa0", " "), "the footer and the live stats"
    )
    assert "Cancel" in screen and " answered · " in screen.replace("\xa0", " ")
    server.approve(server.grants()[-1].user_code)  # only now: the live stats were seen first
    term.wait_for("Signed in")
    term.keys("q")
    term.wait_for("EXITED=0")
    assert (home / "credentials" / "assistant-code.json").exists()


def test_login_region_preselects_global(terminal, server):
    term = terminal("login", "--region", "global", "--no-browser")
    screen = term.wait_until(
        lambda s: any("global" in line and "localhost" in line for line in s.splitlines()), "the global option"
    )
    global_line = next(line for line in screen.splitlines() if "global" in line and "localhost" in line)
    assert global_line  # listed; the cursor is on it: Enter starts global
    term.keys("Enter")
    term.wait_for("Region global")
    term.keys("Escape")
    term.wait_for("Choose the region")
    term.keys("C-q")
    term.wait_for("EXITED=0")


@pytest.mark.parametrize("command", ["inspect", "config"])
def test_esc_on_the_screen_a_command_opened_returns_to_the_shell(terminal, home, server, command):
    """Home was never opened: Esc goes back where the person came from."""
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    term = terminal(command)
    term.wait_until(lambda s: "Back" in term.last_line(s), "the screen's footer")
    term.keys("Escape")
    screen = term.wait_for("EXITED=0")
    assert "Your coding-assistant accounts" not in screen


def test_login_returns_to_the_shell_when_signed_in(terminal, home, server):
    """As `gh auth login`: the wizard ends on success, who and where are printed in the shell."""
    term = terminal("login", "--no-browser")
    term.wait_for("Choose the region of your account")
    term.keys("Enter")
    term.wait_for("Waiting for you to approve")  # the code is there
    server.approve(server.grants()[-1].user_code)
    screen = term.wait_for("EXITED=0")
    assert "✔ Signed in as user-1 · cn" in screen and "Credentials written to" in screen
    assert "assistant-code.json" in screen


def test_the_wizard_alone_keeps_the_done_screen(terminal, home, server):
    term = terminal("--no-browser")
    term.wait_for("Choose the region of your account")
    term.keys("Enter")
    term.wait_for("Waiting for you to approve")  # the code is there
    server.approve(server.grants()[-1].user_code)
    term.wait_until(lambda s: "Signed in as user-1" in s and "Home" in term.last_line(s), "the Done screen")
    term.keys("Escape")
    term.wait_for("Choose the region of your account")  # Home, which it came from


def test_inspect_and_config_subcommands(terminal, home, server):
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    term = terminal("inspect")
    term.wait_for("assistant-code")
    screen = term.wait_until(lambda s: "Refresh" in s and "valid" in s, "the slot row and the footer")
    assert "valid" in screen
    term.keys("C-q")
    term.wait_for("EXITED=0")
    home.joinpath("config.toml").write_text('[providers.p]\nbase_url = "https://p.test/v1"\n')
    term = terminal("config")
    screen = term.wait_until(lambda s: 'providers."p"' in s and "https://p.test/v1" in s, "the provider form")
    assert "https://p.test/v1" in screen
    term.keys("C-q")
    term.wait_for("EXITED=0")


def test_keys_sent_in_one_burst_edit_the_field_in_order(terminal, home):
    """End, two Backspaces and `v2` in one write (fast typing, a paste, a laggy link): the value
    ends in v2, and Ctrl+S saves exactly that."""
    home.mkdir(parents=True, exist_ok=True)
    config = home / "config.toml"
    config.write_text('# mine\n[providers.p]\nbase_url = "https://p.test/v1"\n')
    term = terminal("config")
    term.wait_until(lambda s: "https://p.test/v1" in s and "Save" in s, "the provider form")
    term.keys("Tab")  # the first field: base_url
    term.wait_until(lambda s: term.last_line(s).endswith("f1 Help"), "a text field's footer (? types itself there)")
    term.keys("End", "BSpace", "BSpace", "v", "2")  # one send-keys: one burst
    term.wait_for("https://p.test/v2")
    term.keys("C-s")
    term.wait_for("Write these changes")
    term.keys("y")
    until(lambda: "https://p.test/v2" in config.read_text(), what="the saved value")
    assert config.read_text() == '# mine\n[providers.p]\nbase_url = "https://p.test/v2"\n'


def test_sign_in_at_60x18_keeps_code_state_and_cancel_in_view(terminal, server, home):
    term = terminal("--no-browser", size=(60, 18))
    term.wait_for("Choose the region of your account")
    term.keys("Enter")
    screen = term.wait_until(
        lambda s: "Waiting for you to approve" in s and term.last_line(s).startswith("esc Cancel"),
        "the code screen with its footer",
    )
    code = server.grants()[-1].user_code
    assert " ".join(code) in screen  # the code itself, spaced
    assert term.last_line(screen).startswith("esc Cancel")
    assert "Open browser" not in screen  # no display here: not offered
    term.keys("c")
    term.wait_for("code")  # the toast (OSC 52 copy) is drawn over the screen
    server.approve(code)
    term.wait_for("Signed in as user-1")
    screen = term.wait_until(
        lambda s: len(s.splitlines()) > 17 and s.splitlines()[17].startswith("esc Home"),
        "the Done footer on the last row",
    )
    assert screen.splitlines()[17].startswith("esc Home")  # the footer's first key, on the last row
    term.keys("q")
    term.wait_for("EXITED=0")


def test_switch_on_home_then_the_cli_agrees(terminal, server, home):
    from tui.core import Region
    from tui.core.config.provider import provision_managed_provider
    from tui.core.spec.keys import region_key, region_storage_name

    for region in Region:
        write_creds(
            home,
            {**server.issue_tokens(subject=f"user-{region.value}"), "expires_at": int(time.time()) + 600},
            name=region_storage_name(region),
        )
    provision_managed_provider(region_key(Region.CN), Region.CN)
    term = terminal()
    term.wait_for("* cn")
    term.keys("Down")
    term.keys("w")
    term.wait_for("* global")
    term.keys("q")
    term.wait_for("EXITED=0")
    status = run_command(["status", "--json"], env=os.environ.copy())
    import json

    assert json.loads(status.stdout)["managed_slot"] == region_storage_name(Region.GLOBAL)
    # and back with the CLI
    back = run_command(["switch", "--region", "cn"], env=os.environ.copy())
    assert back.returncode == 0, back.stderr
    term = terminal()
    term.wait_for("* cn")
    term.keys("q")
    term.wait_for("EXITED=0")


def test_doctor_fix_asks_before_each_change_on_a_terminal(terminal, home):
    kept = write_creds(home, {"access_token": "AT-1", "refresh_token": "RT", "expires_at": int(time.time()) + 600})
    other = write_creds(
        home, {"access_token": "AT-2", "refresh_token": "RT", "expires_at": int(time.time()) + 600}, name="other"
    )
    os.chmod(kept, 0o644)
    os.chmod(other, 0o644)
    os.chmod(home, 0o700)
    term = terminal("doctor", "--fix", "--offline", size=(200, 40))
    term.wait_for("Repair: chmod 0600 " + str(kept))
    term.keys("n", "Enter")  # declined: left as it is, and the exit code says so
    term.wait_for("Repair: chmod 0600 " + str(other))
    term.keys("y", "Enter")
    screen = term.wait_for("EXITED=1")
    assert "not repaired: declined" in screen
    assert kept.stat().st_mode & 0o777 == 0o644 and other.stat().st_mode & 0o777 == 0o600
