"""Hardening round 7, attacked by mechanism.

1. A client takes a token only from a socket its own user owns, whose other end is its own user's:
   another user who binds the documented path first (or rebinds a path a link still names) is
   refused by every client (token, exec, status, relay, doctor), in one line naming the path and
   its owner, exit 3; nothing of theirs is printed, handed to a program or written.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess

import pytest

from tests.agent.another_user import STOLEN, AnotherUsersAgent, needs_root
from tests.agent.conftest import RunningAgent, alive
from tests.agent.openssh import SshServer, needs_openssh, remote
from tests.cli.test_cli import SCRIPT, valid
from tests.commands import run_command
from tests.conftest import write_creds
from tests.waiting import until
from tui.core.agent.server import place
from tui.core.agent.wire import naming


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return run_command(args, env=env, timeout=60)


@pytest.fixture
def trap(tmp_path):
    """Another user's socket at the path docs/agent.md's plain-ssh recipe used to name."""
    path = f"/tmp/assistant-auth-{os.getpid()}-{tmp_path.name}.sock"
    agent = AnotherUsersAgent(path)
    try:
        yield path
    finally:
        agent.stop()


def served_env(home, path: str) -> dict[str, str]:
    return {**os.environ, "ASSISTANT_AUTH_SOCK": path}


@needs_root
@pytest.mark.parametrize(
    "command",
    [
        ("token",),
        ("token", "--json"),
        ("exec", "--", "sh", "-c", "echo ran $ASSISTANT_ACCESS_TOKEN"),
        ("status",),
        ("status", "--json"),
        ("doctor", "--offline"),
    ],
    ids=["token", "token-json", "exec", "status", "status-json", "doctor"],
)
def test_a_socket_another_user_bound_is_never_believed(home, trap, command):
    done = run(*command, env=served_env(home, trap))
    assert STOLEN not in done.stdout + done.stderr
    assert "someone-else" not in done.stdout + done.stderr
    assert "belongs to nobody (uid 65534)" in done.stderr + done.stdout and trap in done.stderr + done.stdout
    assert "ran" not in done.stdout  # exec never ran the program
    assert "Served by the token agent on your own machine" not in done.stdout
    if command[0] in ("token", "exec"):
        assert done.returncode == 3


@needs_root
def test_the_relay_writes_nothing_from_another_users_socket(home, trap):
    done = run("relay", "--once", env=served_env(home, trap))
    assert done.returncode != 0 and "belongs to nobody" in done.stderr
    assert not (home / "credentials" / "assistant-code.json").exists()


@needs_root
def test_this_machines_own_sign_in_serves_and_says_why(home, trap, server):
    write_creds(home, {**server.issue_tokens(), "expires_at": 4102444800})
    done = run("token", env=served_env(home, trap))
    assert done.returncode == 0 and done.stdout.strip() == server.issued[-1][0]
    assert "belongs to nobody" in done.stderr  # said: why the variable's agent was not used


@needs_root
def test_a_socket_of_ours_whose_other_end_is_another_user_is_refused_too(home, tmp_path):
    """The owner check alone is not enough: a socket file the person owns (root gave it away here,
    as a rebinding or a mount could) whose listening process is another user's."""
    path = f"/tmp/assistant-auth-{os.getpid()}-peer.sock"
    agent = AnotherUsersAgent(path)
    try:
        os.chown(path, os.geteuid(), os.getegid())  # the file is ours now; its listener is still nobody's
        done = run("token", "--json", env=served_env(home, path))
        assert done.returncode == 3 and STOLEN not in done.stdout + done.stderr
        assert "belongs to nobody (uid 65534)" in done.stderr
    finally:
        agent.stop()


@needs_root
def test_a_registered_link_that_now_leads_to_another_users_socket(home, trap):
    """`forwarded/latest.sock` outlived its connection and its target path was bound again."""
    forwarded = home / "forwarded"
    forwarded.mkdir(parents=True, mode=0o700)
    (forwarded / "latest.sock").symlink_to(trap)
    done = run("token", env=served_env(home, str(forwarded / "latest.sock")))
    assert done.returncode == 3 and STOLEN not in done.stdout and "belongs to nobody" in done.stderr
    status = run("status", "--json", env=served_env(home, str(forwarded / "latest.sock")))
    assert status.returncode == 3 and "someone-else" not in status.stdout + status.stderr


@needs_root
@needs_openssh
def test_through_a_real_sshd_the_forward_that_lost_the_race_is_never_replaced_by_the_trap(agent, tmp_path):
    """The person's `ssh -R PATH:agent` finds PATH already bound by another user (the forward
    fails); the shell there still points at PATH: the client refuses it, never prints its token."""
    path = f"/tmp/assistant-auth-{os.getpid()}-race.sock"
    trap = AnotherUsersAgent(path)
    sshd = SshServer(tmp_path / "sshd")
    try:
        command = " ".join(remote(sshd.home, "token")).replace("env ", f"env ASSISTANT_AUTH_SOCK={path} ", 1)
        argv = ["ssh", *sshd.options(), "-R", f"{path}:{agent.path}", sshd.host, command]  # no ExitOnForwardFailure
        done = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
        assert STOLEN not in done.stdout + done.stderr
        assert done.returncode == 3 and "belongs to nobody (uid 65534)" in done.stderr
    finally:
        sshd.stop()
        trap.stop()


# -- 2. one agent per home and per policy -----------------------------------------------------------


def start_json(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, dict | None]:
    done = run_command(["agent", "--json", *args], timeout=60, env=env or os.environ.copy())
    try:
        return done, json.loads(done.stdout)
    except ValueError:
        return done, None


@pytest.mark.parametrize(
    ("asked", "says"),
    [
        (("--confirm",), "runs without --confirm, which this start asked for"),
        (("--lifetime", "5"), "runs with another --lifetime (none) than this start asked for (5 s)"),
    ],
    ids=["confirm", "lifetime"],
)
def test_a_policy_asked_for_is_never_dropped_for_already_running(runtime, asked, says):
    _where, started = runtime
    first, found = start_json()
    assert first.returncode == 0 and found is not None, first.stderr
    started.append(found["pid"])
    refused, _ = start_json(*asked)
    assert refused.returncode == 2 and says in refused.stderr
    assert f"(pid {found['pid']})" in refused.stderr and "agent --stop" in refused.stderr
    assert refused.stdout == ""  # no shell lines pointing anywhere
    again, same = start_json()
    assert again.returncode == 0 and same == found and "already running" in again.stderr


def test_a_confirm_agent_is_not_taken_for_a_plain_one_either(runtime):
    _where, started = runtime
    first, found = start_json("--confirm")
    assert first.returncode == 0 and found is not None, first.stderr
    started.append(found["pid"])
    refused, _ = start_json()
    assert refused.returncode == 2 and "runs with --confirm" in refused.stderr


def test_each_home_has_its_own_agent(runtime, tmp_path, server):
    where, started = runtime
    first, mine = start_json()
    started.append(mine["pid"])
    other_home = tmp_path / "other-home"
    other_home.mkdir(mode=0o700)
    write_creds(other_home, {**server.issue_tokens(subject="someone-else"), "expires_at": 4102444800})
    other_env = {**os.environ, "ASSISTANT_CODE_HOME": str(other_home)}
    second, theirs = start_json(env=other_env)
    assert second.returncode == 0 and theirs is not None, second.stderr
    started.append(theirs["pid"])
    assert theirs["socket"] != mine["socket"] and os.path.dirname(theirs["socket"]) == str(where / "assistant-auth")
    token = run("token", env={**other_env, "ASSISTANT_AUTH_SOCK": theirs["socket"]})
    assert token.returncode == 0 and token.stdout.strip() == server.issued[-1][0]  # that home's token
    status = run("status", env={**os.environ, "ASSISTANT_AUTH_SOCK": mine["socket"]})
    assert "no refresh token is stored" not in status.stdout  # this home's agent serves this home's files


def test_the_default_home_keeps_the_documented_stable_name(runtime, monkeypatch):
    where, started = runtime
    monkeypatch.setenv("ASSISTANT_CODE_HOME", os.path.join(os.environ["HOME"], ".assistant-code"))
    done, found = start_json()
    assert done.returncode == 0 and found is not None, done.stderr
    started.append(found["pid"])
    assert found["socket"] == str(where / "assistant-auth" / "agent.sock")


# -- 3. `assistant-auth ssh` never takes the place every shell finds -----------------------------------


def ssh_token(sshd: SshServer, server_home, env: dict[str, str] | None = None) -> subprocess.Popen:
    """`assistant-auth ssh HOST` whose command waits a moment (so two overlap), then asks for a token."""
    script = f"sleep 1; {' '.join(remote(server_home, 'token'))}"
    return subprocess.Popen(
        [SCRIPT, "ssh", *sshd.options(), sshd.host, "sh", "-c", shlex.quote(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env or os.environ.copy(),
    )


@needs_openssh
def test_connections_without_an_agent_each_serve_their_own_and_leave_the_stable_place_free(
    laptop, server, runtime, sshd, server_home, monkeypatch
):
    where, started = runtime
    monkeypatch.delenv("ASSISTANT_AUTH_SOCK", raising=False)
    write_creds(laptop, valid(server))
    first, second = ssh_token(sshd, server_home), ssh_token(sshd, server_home)  # at once
    for connection in (first, second):
        out, errors = connection.communicate(timeout=120)
        assert connection.returncode == 0 and out.strip() == server.issued[-1][0], errors
        assert "AlreadyRunning" not in errors and "unexpected error" not in errors
    stable = place.stable_path()
    assert stable is not None and not os.path.exists(stable)  # never taken by a connection's own agent
    done, found = start_json()  # a shell's agent still finds its place free
    assert done.returncode == 0 and found["socket"] == stable, done.stderr
    started.append(found["pid"])


@needs_openssh
def test_a_connection_uses_the_agent_serving_the_stable_place(laptop, server, runtime, sshd, server_home, monkeypatch):
    _where, started = runtime
    monkeypatch.delenv("ASSISTANT_AUTH_SOCK", raising=False)
    write_creds(laptop, valid(server))
    done, service = start_json()  # as a user service would run it
    started.append(service["pid"])
    connection = ssh_token(sshd, server_home)
    out, errors = connection.communicate(timeout=120)
    assert connection.returncode == 0 and out.strip() == server.issued[-1][0], errors
    events = run_command(
        ["agent", "--stop", "--json"], env={**os.environ, "ASSISTANT_AUTH_SOCK": service["socket"]}, timeout=60
    )
    assert events.returncode == 0  # the service was there, and stopped on its own machine


# -- 4. a dead agent's leftovers go with its socket ---------------------------------------------------


def test_a_killed_confirm_agents_key_is_replaced_on_restart(runtime):
    """A user service with Restart=on-failure: the agent killed (OOM, a crash), its key left behind."""
    _where, started = runtime
    first, found = start_json("--confirm")
    assert first.returncode == 0 and found is not None, first.stderr
    key = naming.key_of(found["socket"])
    old_key = open(key).read()
    os.kill(found["pid"], signal.SIGKILL)
    until(lambda: not alive(found["pid"]))
    assert os.path.exists(key) and os.path.exists(found["socket"])  # the leftovers
    second, again = start_json("--confirm")
    assert second.returncode == 0 and again is not None, second.stderr
    started.append(again["pid"])
    assert again["socket"] == found["socket"] and open(key).read() != old_key  # a new key, a new agent


@pytest.mark.parametrize("kind", ["link", "directory", "fifo"])
def test_a_leftover_that_is_not_ours_to_replace_stops_the_start_with_words(runtime, tmp_path, kind):
    _where, started = runtime
    first, found = start_json("--confirm")
    os.kill(found["pid"], signal.SIGKILL)
    until(lambda: not alive(found["pid"]))
    key = naming.key_of(found["socket"])
    os.unlink(key)
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    if kind == "link":
        os.symlink(target, key)
    elif kind == "directory":
        os.mkdir(key)
    else:
        os.mkfifo(key)
    done, again = start_json("--confirm")
    if again is not None:
        started.append(again["pid"])
    assert done.returncode == 2 and "no place to ask you" in done.stderr
    assert target.read_text() == "keep" and os.path.lexists(key)  # nothing followed, nothing removed


# -- 6. a server says what it knows, for every forwarded socket ---------------------------------------


@needs_openssh
def test_a_plain_ssh_forward_at_any_path_is_known_as_a_server_and_names_the_lifetime(laptop, server, tmp_path):
    """`ssh -R /tmp/my-agent.sock:…` (the person's own path): when the laptop's agent has stopped
    (its --lifetime ended), the server is told about the person's own machine, never to start an
    agent there."""
    write_creds(laptop, valid(server))
    running = RunningAgent(os.environ.copy(), "--lifetime", "2")
    sshd = SshServer(tmp_path / "sshd")
    path = f"/tmp/my-agent-{os.getpid()}.sock"
    try:
        until(lambda: running.process.poll() is not None, what="the agent's lifetime ending")
        command = " ".join(remote(sshd.home, "token")).replace("env ", f"env ASSISTANT_AUTH_SOCK={path} ", 1)
        argv = ["ssh", *sshd.options(), "-R", f"{path}:{running.path}", sshd.host, command]
        done = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
        assert done.returncode == 3, done.stderr
        assert "your own machine" in done.stderr and "--lifetime ended" in done.stderr
        assert "unset ASSISTANT_AUTH_SOCK to use this machine's own sign-in" not in done.stderr
    finally:
        running.stop()
        sshd.stop()
        if os.path.lexists(path):
            os.unlink(path)


# -- attacked beyond the list ----------------------------------------------------------------------------


HOSTILE_HOSTS = [
    "evil\x1b[2J\x1b]52;c;ZXZpbA==\x07host",  # a screen clear and a clipboard write
    "host\n* FORGED: allow everything",  # a forged line
    "\u202eevil.example\u202c",  # bidi override
    "[@click=app.quit]x[/]",  # Textual markup
    "a" * 5000,
]


@pytest.mark.parametrize("host", HOSTILE_HOSTS, ids=["escapes", "newline", "bidi", "markup", "long"])
async def test_a_hostile_host_from_an_ssh_command_line_is_one_inert_line_in_the_question(home, host):
    """The host of the question comes from the peer's ssh command line (`peer.host_of`): whatever
    a server-side user could make ssh's argv hold reaches the dialog as one printable line."""
    from textual.app import App

    from tests.app.helpers import screen_text, wait_for
    from tui.app.screens.ask import AskScreen
    from tui.core.agent.server.peer import host_of

    seen = host_of(["ssh", "-R", "/tmp/x.sock:/y", host, "sh"])
    assert seen == host[:255]

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(AskScreen(3, "forwarded", "a token of cn", 30, "token", seen))

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "Allow once" in screen_text(app))
        text = screen_text(app)
        assert "\x1b" not in text and "\u202e" not in text
        assert not any(line.lstrip().startswith("* FORGED") for line in text.splitlines())
        assert app.is_running  # the markup did not quit it
