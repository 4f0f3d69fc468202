"""Classes 4, 8, 10-15, 17, 19 (mode) and 20 of the hardening issue: hostile files, odd outputs,
odd settings. Each ends in a clear message and an exit code; nothing hangs, leaks or is lost."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from tests.app.helpers import screen_text, wait_for
from tests.commands import run_command
from tests.conftest import default_signals, write_creds
from tests.toml import tomllib
from tests.waiting import PATIENCE
from tui.app import AssistantAuthApp
from tui.core import (
    MANAGED_PROVIDER,
    AuthError,
    endpoints,
    get_access_token,
    load_credentials,
)
from tui.core.config.edit import mask_secrets, masked_diff
from tui.core.config.provider import provision_managed_provider
from tui.core.text.redact import redact, register_secret


def cli(*args: str, stdin: str | None = None, timeout: float = PATIENCE, **kwargs) -> subprocess.CompletedProcess:
    return run_command(args, input=stdin, timeout=timeout, **kwargs)


def shell(command: str, timeout: float = PATIENCE) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=timeout)


def no_traceback(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr


# -- class 4: secrets masked from the parsed document -----------------------------------------

SECRET_CONFIG = '''[providers.a]
a.api_key = "sk-dotted-SECRET-1"
"api_key" = "sk-quoted-SECRET-2"
[providers.b]
api_key = """sk-multi-SECRET-3
second-line-SECRET-4"""
[providers.c]
api_key = "sk-escaped\\"SECRET-5"
[providers.d]
api_key = \'\'\'sk-literal-SECRET-6\'\'\'
[providers.e]
oauth = { key = "k", client_secret = "cs-inline-SECRET-7" }
[[providers.f.keys]]
api_key = "sk-array-SECRET-8"
'''


def test_raw_view_masks_every_spelling():
    shown = mask_secrets(SECRET_CONFIG)
    assert "SECRET" not in shown
    assert "[providers.b]" in shown and 'oauth = { key = "k"' in shown  # the rest is untouched


def test_save_diff_masks_every_spelling_on_both_sides():
    new = SECRET_CONFIG.replace("SECRET-2", "SECRET-9").replace("second-line", "other-line")
    diff = masked_diff(SECRET_CONFIG, new)
    assert "SECRET" not in diff and diff.count("\n-") >= 1 and diff.count("\n+") >= 1


async def test_raw_view_on_screen_shows_no_secret(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(SECRET_CONFIG)
    app = AssistantAuthApp(start="providers")
    async with app.run_test(size=(120, 50)) as pilot:
        await wait_for(pilot, lambda: "base_url" in screen_text(app))
        await pilot.press("f2")
        await wait_for(pilot, lambda: "providers.b" in screen_text(app))
        text = screen_text(app)
        assert "providers.b" in text and "SECRET" not in text


# -- class 8: every parser error becomes the spec's message -----------------------------------

DUPLICATES = [
    f'[providers."{MANAGED_PROVIDER}"]\nbase_url = "a"\nbase_url = "b"\n',
    "[general]\ntheme = 1\n[other]\nx = 1\n[general]\ny = 2\n",
    "a = 1\na = 2\n",
    "[a]\nb = { c = 1, c = 2 }\n",
]


@pytest.mark.parametrize("text", DUPLICATES)
def test_duplicate_keys_give_the_config_message(home, text):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(text)
    with pytest.raises(AuthError, match="^Failed to read assistant config: "):
        provision_managed_provider("oauth/assistant-code", "cn")
    assert (home / "config.toml").read_text() == text


@pytest.mark.parametrize("text", DUPLICATES[:2])
def test_cli_login_with_duplicate_keys_keeps_tokens_and_prints_no_traceback(home, server, text):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(text)
    server.auto_approve = 0.0
    done = cli("login", "--no-tui", timeout=30)
    no_traceback(done)
    assert "Failed to read assistant config: " in done.stderr
    assert load_credentials("assistant-code")["access_token"] == server.issued[-1][0]  # tokens kept


@pytest.mark.parametrize("text", DUPLICATES[:2])
async def test_editor_with_duplicate_keys_shows_the_message(home, text):
    home.mkdir(parents=True)
    (home / "config.toml").write_text(text)
    app = AssistantAuthApp(start="providers")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: "Failed to read assistant config" in screen_text(app))
        await pilot.press("ctrl+s")
        await pilot.pause(0.1)
    assert (home / "config.toml").read_text() == text


# -- class 10: non-finite numbers are invalid values ------------------------------------------


@pytest.mark.parametrize("value", ["1e400", "-1e400", "NaN", "Infinity", "-Infinity"])
async def test_non_finite_expiry_is_an_invalid_file_everywhere(home, value):
    path = home / "credentials" / "assistant-code.json"
    path.parent.mkdir(parents=True)
    path.write_text(f'{{"access_token": "AT-x", "refresh_token": "RT-x", "expires_at": {value}}}')
    with pytest.raises(AuthError, match="^Failed to parse OAuth credentials: "):
        load_credentials("assistant-code")
    done = cli("status")
    no_traceback(done)
    assert "* cn: unparsable" in done.stdout and done.returncode == 1
    done = cli("token")
    no_traceback(done)
    assert done.returncode == 1 and done.stderr.startswith("Failed to parse OAuth credentials: ")
    for start in ("home", "inspect"):
        app = AssistantAuthApp(start=start)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: "unparsable" in screen_text(app).lower())


# -- class 11: closed or full outputs, odd host settings ---------------------------------------


@pytest.fixture
def valid_token(home):
    write_creds(home, {"access_token": "AT-valid-0123456789", "refresh_token": "RT-x", "expires_at": 4102444800})


@pytest.mark.parametrize("redirect", ["| head -c0", "> /dev/full", ">&-", "| true"])
@pytest.mark.parametrize("command", ["token", "status", "status --json", "--help"])
def test_closed_or_full_stdout_gives_one_line_and_an_exit_code(valid_token, redirect, command):
    done = shell(f"{sys.executable} -m tui.cli {command} {redirect}; echo rc=$? >&2")
    no_traceback(done)
    assert "rc=" in done.stderr and "Error" not in done.stderr.replace("rc=", "")


@pytest.mark.parametrize("host", ["https://[::1", "https://h:abc", "https://h\udcff", "https://h ost", "ht!tp://x"])
def test_odd_host_settings_give_a_message(home, host):
    write_creds(home, {"access_token": "AT-x", "refresh_token": "RT-x", "expires_at": 1})
    env = {**os.environ, "ASSISTANT_OAUTH_HOST_CN": host}
    for command in (["token"], ["refresh"], ["login", "--no-tui"]):
        done = subprocess.run(
            [sys.executable, "-m", "tui.cli", *command],
            capture_output=True,
            timeout=PATIENCE,
            env={k: v.encode("utf-8", "surrogateescape") for k, v in env.items()},
        )
        stderr = done.stderr.decode("utf-8", "replace")
        assert b"Traceback" not in done.stderr, stderr
        assert done.returncode in (1, 2) and stderr.strip(), (command, stderr)


# -- class 12: a token that is not printable ASCII is never printed ---------------------------
# (since hardening round 4 such a stored token counts as needing a refresh: one definition of
# "usable" for every face; it is still never printed, whatever happens)

UNPRINTABLE = ["AT-line\nbreak-012345", "AT-\x1b]52;c;ZXZpbA==\x07", "AT-\x1b[2J-0123", "AT with spaces", "AT-é-0123"]


@pytest.mark.parametrize("token", UNPRINTABLE)
def test_token_command_refuses_unprintable_tokens(home, token):
    write_creds(home, {"access_token": token, "expires_at": 4102444800})  # nothing to refresh with
    done = cli("token")
    assert done.returncode == 1 and done.stdout == ""
    assert token not in done.stderr and "\x1b" not in done.stderr


@pytest.mark.parametrize("token", UNPRINTABLE)
def test_an_unprintable_stored_token_is_refreshed_not_printed(home, server, token):
    from tui.core import endpoints

    write_creds(home, {**server.issue_tokens(), "access_token": token, "expires_at": 4102444800})
    done = cli("token")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == server.issued[-1][0] and token not in done.stdout + done.stderr
    assert endpoints("cn").oauth_host.startswith("http://127.0.0.1")


# -- class 13: FIFOs never hang ---------------------------------------------------------------


@pytest.mark.parametrize("where", ["credentials/assistant-code.json", "credentials/other.json", "config.toml"])
def test_fifos_do_not_hang_status_or_token(home, where):
    (home / "credentials").mkdir(parents=True)
    os.mkfifo(home / where)
    for command in (["status"], ["token"], ["status", "--json"]):
        done = cli(*command)
        no_traceback(done)
        assert done.returncode in (1, 2)
    if where.endswith(".json"):
        assert "not a regular file" in cli("status").stdout


# -- class 14: a huge config.toml is refused quickly -------------------------------------------


def test_huge_config_is_refused_with_the_size(home, server):
    home.mkdir(parents=True)
    (home / "config.toml").write_text("# filler\n" * (300_000))  # ~2.7 MB
    with pytest.raises(AuthError) as info:
        provision_managed_provider("oauth/assistant-code", "cn")
    assert str(info.value) == f"Failed to read assistant config: {home / 'config.toml'} is larger than 1 MiB"
    done = cli("status", "--provider", "x")
    assert "is larger than 1 MiB" in done.stderr


# -- class 15: unknown regions on the command line ---------------------------------------------


@pytest.mark.parametrize(
    "args", [["login", "--region", "globl"], ["--region", "eu"], ["login", "--no-tui", "--region", ""]]
)
def test_unknown_region_is_rejected(home, args):
    done = cli(*args)
    assert done.returncode == 2 and "unknown region" in done.stderr
    assert not (home / "credentials").exists()


# -- class 17: line endings and byte-order marks are kept --------------------------------------


@pytest.mark.parametrize("prefix", ["", "\ufeff"])
@pytest.mark.parametrize("region", ["cn", "global"])
def test_crlf_and_bom_survive_provisioning(home, prefix, region):
    home.mkdir(parents=True)
    original = prefix + '# mine\r\n[general]\r\ntheme = "dark"\r\n'
    (home / "config.toml").write_bytes(original.encode("utf-8"))
    provision_managed_provider("oauth/assistant-code", region)
    provision_managed_provider("oauth/assistant-code", "cn")  # edit in place too
    raw = (home / "config.toml").read_bytes()
    assert raw.startswith(original.encode("utf-8"))
    assert raw.count(b"\n") == raw.count(b"\r\n")  # no bare LF anywhere
    assert tomllib.loads(raw.decode("utf-8").removeprefix("\ufeff"))["providers"][MANAGED_PROVIDER]


def test_bom_config_is_read(home):
    home.mkdir(parents=True)
    (home / "config.toml").write_bytes('\ufeff[providers.x]\nbase_url = "https://x.test"\n'.encode())
    assert cli("status", "--provider", "x").returncode in (0, 1)
    assert "Empty key" not in cli("status", "--provider", "x").stderr


# -- class 19: config.toml's mode is kept exactly, whatever the umask --------------------------


@pytest.mark.parametrize("mode", [0o666, 0o640, 0o600])
def test_config_mode_kept_on_rewrite(home, mode):
    home.mkdir(parents=True)
    path = home / "config.toml"
    path.write_text("[general]\n")
    os.chmod(path, mode)
    old = os.umask(0o077)
    try:
        provision_managed_provider("oauth/assistant-code", "cn")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == mode


# -- class 20: redaction on the parsed form ----------------------------------------------------


def test_json_escaped_secrets_are_redacted():
    register_secret("rt/escaped-secret-value")
    assert "escaped-secret" not in redact('{"error": "bad", "detail": "rt\\/escaped-secret-value"}')
    assert "zzzz" not in redact('{"access\\u005ftoken": "zzzzzzzzzzzz", "ok": 1}')
    assert "qqqq" not in redact('{"refresh\\u005Ftoken": "qqqqqqqqqq"}')
    assert redact('{"error":"invalid_grant"}') == '{"error":"invalid_grant"}'  # untouched otherwise


async def test_refresh_error_body_echoing_an_escaped_token_is_redacted(home, server):
    from tui.demo.server import TOKEN_PATH

    stored = {**server.issue_tokens(), "expires_at": 1}
    write_creds(home, stored)
    echoed = json.dumps(stored["refresh_token"]).replace("_", "\\u005f")
    server.inject(TOKEN_PATH, status=400, body=f'{{"error": "invalid_grant", "token": {echoed}}}')
    with pytest.raises(AuthError) as info:
        await get_access_token(None, endpoints("cn").base_url)
    assert stored["refresh_token"] not in str(info.value) and stored["refresh_token"][3:15] not in str(info.value)


# -- class 7: approved tokens waiting for the locks are never dropped without asking -------------


async def test_wizard_asks_before_discarding_an_approved_sign_in(home, server):
    from tests.app.helpers import screen_name
    from tests.core.test_cotenancy import competitor, finish, release, wait_locked

    server.auto_approve = 0.0
    # held until the question has been asked and answered: a hold of 8 s once ended, on a loaded
    # machine, before Esc was pressed, and the tokens were saved with no question to ask
    holder = competitor(home, None, action="hold", protocol="dir", seconds=-1)
    wait_locked(holder)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "saving", False))
        await wait_for(pilot, lambda: "saving the sign-in" in " ".join(screen_text(app).split()))  # may wrap
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
        assert "Discard your approved sign-in?" in screen_text(app)
        await pilot.press("n")  # keep waiting
        await wait_for(pilot, lambda: screen_name(app) == "SignInScreen")
        release(holder)
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
    finish(holder)
    assert load_credentials("assistant-code")["access_token"] == server.issued[-1][0]


# -- class 16: a non-positive expires_in does not show 0:00 while polling goes on --------------


@pytest.mark.parametrize("expires_in", [0, -30])
async def test_nonsense_lifetime_counts_down_the_poll_budget(server, expires_in):
    from tui.demo.server import DEVICE_PATH, TOKEN_PATH

    body = {
        "user_code": "WDJB-MJHT",
        "device_code": "dc-x",
        "verification_uri": server.verification_uri(),
        "expires_in": expires_in,
        "interval": 1,
    }
    server.inject(DEVICE_PATH, status=200, body=json.dumps(body))
    server.inject(TOKEN_PATH, status=400, body='{"error": "authorization_pending"}', times=50)
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        assert "code expires in 14:5" in screen_text(app) or "code expires in 15:00" in screen_text(app)
        await pilot.press("escape")


# -- class 18: TERM=dumb gets plain lines, no escape sequences ---------------------------------


@pytest.mark.parametrize("term,escapes", [("dumb", False), ("xterm-256color", True)])
def test_login_no_tui_on_a_dumb_terminal(home, server, term, escapes):
    import pty

    server.auto_approve = 1.5
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": term}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "login", "--no-tui"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait(timeout=30) == 0
    os.close(master)
    assert (b"\x1b[2K" in out) is escapes
    assert b"Signed in" in out or b"signed in" in out.lower()


# -- class 19: world-open directories are warned about and repaired ----------------------------


@pytest.mark.parametrize("which", ["config", "credentials"])
async def test_open_directories_are_warned_about_and_fixed(home, which):
    from tui.core.slots.permissions import apply_plan, permission_plan

    write_creds(home, {"access_token": "AT-x", "refresh_token": "RT-x", "expires_at": 4102444800})
    directory = home if which == "config" else home / "credentials"
    os.chmod(directory, 0o777)
    done = cli("status")
    assert f"warning: {directory} has mode 0777" in done.stdout
    assert json.loads(cli("status", "--json").stdout)["warnings"]
    app = AssistantAuthApp(start="inspect")
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: "has mode 0777" in screen_text(app))
    plan, _links = permission_plan("assistant-code")
    done, not_done = apply_plan(plan)
    assert any(str(directory) in line for line in done) and not_done == []
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700 and "warning" not in cli("status").stdout


def test_cli_login_asks_before_discarding_an_approved_sign_in(home, server):
    """Ctrl+C once while approved tokens wait for the locks: a warning, the tokens are saved."""
    import signal
    import time as clock

    from tests.core.test_cotenancy import competitor, finish, release, wait_locked

    server.auto_approve = 0.0
    holder = competitor(home, None, action="hold", protocol="dir", seconds=-1)  # until released below
    wait_locked(holder)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui.cli", "login", "--no-tui"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_signals,
    )
    deadline = clock.monotonic() + PATIENCE
    lines = []
    while clock.monotonic() < deadline:
        line = proc.stderr.readline()
        lines.append(line)
        if "press Ctrl+C twice" in line:
            break
    proc.send_signal(signal.SIGINT)
    said = []  # the exact state: the warning is out while the lock is still held
    while clock.monotonic() < deadline + PATIENCE and not any("Press Ctrl+C again" in line for line in said):
        said.append(proc.stderr.readline())
    release(holder)
    rest = "".join(said) + proc.communicate(timeout=PATIENCE)[1]
    finish(holder)
    assert proc.returncode == 0, "".join(lines) + rest
    assert "Press Ctrl+C again within 5 s" in rest and "Signed in as user-1 · cn." in rest and "Traceback" not in rest
    assert load_credentials("assistant-code")["access_token"] == server.issued[-1][0]


@pytest.mark.parametrize("text", DUPLICATES[:2])
async def test_wizard_sign_in_with_duplicate_keys_ends_on_a_message_with_tokens_kept(home, server, text):
    from tests.app.helpers import screen_name

    home.mkdir(parents=True)
    (home / "config.toml").write_text(text)
    server.auto_approve = 0.0
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "OutcomeScreen")
        assert "Failed to read assistant config" in screen_text(app)
    assert load_credentials("assistant-code")["access_token"] == server.issued[-1][0]
    assert (home / "config.toml").read_text() == text
