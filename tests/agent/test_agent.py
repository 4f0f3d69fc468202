"""The token agent on one machine: real agent processes, real clients, the local authorization
server. The refresh happens on the agent's side; the client's home gets nothing, ever."""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import signal
import socket
import stat
import subprocess
import tempfile
import threading
import time

from tests.agent.conftest import RunningAgent, files_under, on_server, run_on_server
from tests.cli.test_cli import SCRIPT, expired, valid
from tests.commands import run_command
from tests.conftest import default_signals, needs_root, read_json, write_creds
from tests.waiting import PATIENCE, until
from tui.core.agent.client.ask import STALL, AgentUnavailable, ask
from tui.core.agent.wire.protocol import Request
from tui.demo.server import TOKEN_PATH


def refreshes(server) -> int:
    return server.count(TOKEN_PATH, "refresh_token")


def test_token_exec_and_status_through_the_agent_write_nothing(laptop, server, agent, server_home):
    path = write_creds(laptop, expired(server))
    env = on_server(agent.path, server_home)
    done = run_on_server(env, "token")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == server.issued[-1][0] and refreshes(server) == 1  # refreshed on the laptop
    assert read_json(path)["refresh_token"] == server.issued[-1][1]
    record = json.loads(run_on_server(env, "token", "--json", "--min-ttl", "60").stdout)
    assert record["access_token"] == server.issued[-1][0] and record["agent"] is True
    assert record["region"] == "cn" and record["slot"] == "assistant-code" and record["expires_in"] > 60
    assert "refresh_token" not in json.dumps(record)
    ran = run_on_server(env, "exec", "--", "sh", "-c", 'test -n "$ASSISTANT_ACCESS_TOKEN" && echo got')
    assert ran.returncode == 0 and ran.stdout == "got\n"
    status = run_on_server(env, "status")
    assert status.returncode == 0, status.stderr
    assert "Served by the token agent on your own machine" in status.stdout and agent.path in status.stdout
    assert "no refresh token is stored on this machine" in status.stdout
    as_json = json.loads(run_on_server(env, "status", "--json").stdout)
    assert as_json["usable"] is True and as_json["refresh_token_stored_here"] is False
    assert refreshes(server) == 1
    assert files_under(server_home) == []  # nothing was ever written on the server side
    secrets = [pair[1] for pair in server.issued]
    for said in (done, ran, status):
        assert not any(secret in said.stdout + said.stderr for secret in secrets)


def test_a_hundred_clients_make_one_refresh(laptop, server, agent, server_home):
    write_creds(laptop, expired(server))
    server.refresh_delay = 0.5
    env = on_server(agent.path, server_home)
    results: list[str] = []
    lock = threading.Lock()

    def one() -> None:
        answer = ask(Request("token"), agent.path)
        with lock:
            results.append(str(answer.get("access_token")))

    threads = [threading.Thread(target=one) for _ in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    assert refreshes(server) == 1
    assert len(results) == 100 and set(results) == {server.issued[-1][0]}
    assert run_on_server(env, "token").stdout.strip() == server.issued[-1][0]


def test_errors_come_back_with_their_exit_codes(laptop, server, agent, server_home):
    env = on_server(agent.path, server_home)
    missing = run_on_server(env, "token")
    assert missing.returncode == 1 and "credentials not found" in missing.stderr
    write_creds(laptop, valid(server))
    assert run_on_server(env, "token", "--min-ttl", "100000").returncode == 2
    assert run_on_server(env, "token", "--base-url", "https://x.test").returncode == 2  # not asked by a host
    assert run_on_server(env, "token", "--region", "global").returncode == 1


def test_a_stopped_or_killed_agent_is_said_never_a_fallback(laptop, server, server_home):
    """Where this machine has no sign-in of its own (a server the agent serves), nothing takes the
    agent's place: exit 3 and the line."""
    write_creds(laptop, valid(server))
    running = RunningAgent(os.environ.copy())
    env = on_server(running.path, server_home)
    assert run_on_server(env, "token").returncode == 0
    os.kill(running.process.pid, signal.SIGKILL)
    running.process.wait()
    started = time.monotonic()
    done = run_on_server(env, "token")
    assert done.returncode == 3 and done.stdout == ""
    assert "The token agent at " + running.path in done.stderr and "is not answering" in done.stderr
    assert time.monotonic() - started < 30
    status = run_on_server(env, "status")
    assert status.returncode == 3 and "is not answering" in status.stderr
    relayed = {"access_token": "relayed", "refresh_token": "", "expires_in": 0, "expires_at": 4102444800}
    write_creds(server_home, relayed)  # the relay's access-only file: no sign-in of this machine either
    assert run_on_server(env, "token").returncode == 3


def test_a_stale_variable_where_this_machine_has_its_own_sign_in_uses_it_and_says_so(laptop, server, server_home):
    """The laptop with its own good sign-in and a variable naming an agent that is gone: one line,
    then this machine's token (never exit 3 for a sign-in that is right here)."""
    running = RunningAgent(os.environ.copy())
    os.kill(running.process.pid, signal.SIGKILL)
    running.process.wait()
    write_creds(server_home, valid(server))  # this machine's own sign-in
    env = on_server(running.path, server_home)
    done = run_on_server(env, "token")
    assert done.returncode == 0 and done.stdout.strip() == server.issued[-1][0]
    said = [line for line in done.stderr.splitlines() if line]
    assert len(said) == 1 and "does not answer; this machine's own sign-in is used instead" in said[0]
    assert "assistant-auth ssh" not in done.stderr  # never "reconnect with ssh" on the agent's own machine
    status = run_on_server(env, "status")
    assert status.returncode == 0 and "own sign-in is used instead" in status.stderr and "cn: valid" in status.stdout


def test_an_agent_killed_mid_request_ends_the_client_with_exit_3(laptop, server, server_home):
    write_creds(laptop, expired(server))
    server.refresh_gate = threading.Event()  # the refresh waits: the agent is mid-request
    running = RunningAgent(os.environ.copy())
    env = on_server(running.path, server_home)
    client = subprocess.Popen([SCRIPT, "token"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    until(lambda: refreshes(server) == 1)
    os.kill(running.process.pid, signal.SIGKILL)
    running.process.wait()
    out, err = client.communicate(timeout=30)
    server.refresh_gate.set()
    assert client.returncode == 3 and out == "" and "is not answering" in err
    assert files_under(env_home(env)) == []


def env_home(env):
    import pathlib

    return pathlib.Path(env["ASSISTANT_CODE_HOME"])


def test_a_stop_waits_for_the_refresh_in_flight_to_be_stored(laptop, server):
    path = write_creds(laptop, expired(server))
    server.refresh_gate = threading.Event()
    running = RunningAgent(os.environ.copy())
    said: list[object] = []

    def asking() -> None:
        try:
            said.append(ask(Request("token"), running.path))
        except AgentUnavailable as exc:  # a stopping agent may close the connection: exit 3 for that client
            said.append(exc)

    asker = threading.Thread(target=asking)
    asker.start()
    until(lambda: refreshes(server) == 1)
    running.process.send_signal(signal.SIGTERM)  # it stops accepting; the refresh sent is answered and stored
    until(lambda: not os.path.exists(running.path))  # the exact state: the agent is stopping
    server.refresh_gate.set()
    running.process.wait(timeout=30)
    asker.join(30)
    assert read_json(path)["refresh_token"] == server.issued[-1][1]  # the rotation was kept
    assert len(said) == 1  # the one asking got an answer or was told, never left waiting
    assert not os.path.exists(running.path) and not os.path.exists(os.path.dirname(running.path))


def test_the_socket_is_private(agent):
    directory = os.path.dirname(agent.path)
    assert os.stat(directory).st_mode & 0o777 == 0o700
    assert os.stat(agent.path).st_mode & 0o777 == 0o600


def test_stop_and_lifetime(laptop, server):
    env = os.environ.copy()
    started = run_command(["agent"], env=env, timeout=30)
    assert started.returncode == 0, started.stderr
    lines = started.stdout.splitlines()
    assert lines[0].startswith("ASSISTANT_AUTH_SOCK=") and lines[0].endswith("; export ASSISTANT_AUTH_SOCK;")
    assert lines[1].startswith("ASSISTANT_AUTH_AGENT_PID=") and lines[2].startswith("echo Agent pid ")
    path = lines[0].split("=", 1)[1].split(";")[0]
    pid = int(lines[1].split("=", 1)[1].split(";")[0])
    env.update(ASSISTANT_AUTH_SOCK=path, ASSISTANT_AUTH_AGENT_PID=str(pid))
    assert ask(Request("status"), path)["ok"] is True
    stopped = run_command(["agent", "--stop"], env=env, timeout=30)
    assert stopped.returncode == 0 and "unset ASSISTANT_AUTH_SOCK;" in stopped.stdout
    until(lambda: not os.path.exists(path))
    short = RunningAgent(os.environ.copy(), "--lifetime", "1")
    short.process.wait(timeout=30)  # it stops serving by itself
    assert not os.path.exists(short.path)


# -- hostile input on the socket ----------------------------------------------------------------------


def connect(path: str) -> socket.socket:
    """A connection; while the agent's backlog is full (it accepts in batches), try again."""
    deadline = time.monotonic() + PATIENCE
    while True:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.settimeout(30)
        try:
            conn.connect(path)
            return conn
        except BlockingIOError:
            conn.close()
            assert time.monotonic() < deadline, "the agent never accepted"
            time.sleep(0.01)


def read_answer(conn: socket.socket) -> dict:
    """The answer line, past any `{"v":1,"working":true}` the agent sends while a refresh takes
    longer than its heartbeat (a documented part of the protocol, and what a loaded machine sees);
    {} when the connection ends first."""
    data = b""
    while True:
        line, newline, rest = data.partition(b"\n")
        if newline:
            message = json.loads(line)
            if not (message.get("working") is True and "ok" not in message):
                return message
            data = rest
            continue
        chunk = conn.recv(65536)
        if not chunk:
            return json.loads(data) if data.strip() else {}
        data += chunk


def rss_kib(pid: int) -> int:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def room_for_a_crowd() -> int:
    """A thousand connections, as the open-file limit of this test process allows."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1100 and (hard == resource.RLIM_INFINITY or hard >= 1100):
        resource.setrlimit(resource.RLIMIT_NOFILE, (1100, hard))
    return min(1000, resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 100)


CROWD = room_for_a_crowd()


def test_hostile_clients_never_stop_the_others(laptop, server, agent):
    write_creds(laptop, valid(server))
    garbage = connect(agent.path)
    garbage.sendall(b"\x00\xff not json\n")
    assert read_answer(garbage)["ok"] is False
    garbage.sendall(b'{"v": 1, "op": "token"}\n')  # the same connection goes on after a bad line
    assert read_answer(garbage)["ok"] is True
    before = rss_kib(agent.pid)
    huge = connect(agent.path)
    try:
        huge.sendall(b"x" * (10 << 20) + b"\n")  # a line of 10 MB
    except OSError:
        pass  # the agent closed it after the bound
    answer = read_answer(huge)
    assert answer == {} or "longer than" in answer["error"]
    slow = connect(agent.path)
    slow.sendall(b"{")  # one byte, then nothing: cut off after the read timeout
    crowd = [connect(agent.path) for _ in range(CROWD)]
    # others are served: another program (the crowd's own process is one peer, bounded: #58 11)
    other = run_command(["token"], env={**os.environ, "ASSISTANT_AUTH_SOCK": agent.path})
    assert other.returncode == 0 and other.stdout.strip() == server.issued[-1][0], other.stderr
    for conn in crowd:
        conn.close()
    assert read_answer(slow) == {}  # cut off by the agent after its read timeout (EOF), never an answer
    assert rss_kib(agent.pid) - before < 64 * 1024  # memory stays bounded (the 10 MB line was never kept)
    assert ask(Request("token"), agent.path)["ok"] is True


@needs_root
def test_another_users_connection_is_refused(laptop, server, agent):
    """The socket is 0600 in a 0700 directory; opened up by hand, the peer check still refuses."""
    write_creds(laptop, valid(server))
    os.chmod(os.path.dirname(agent.path), 0o711)
    os.chmod(agent.path, 0o666)
    code = (
        "import os, socket, sys\n"
        "os.setgid(65534); os.setuid(65534)\n"
        "s = socket.socket(socket.AF_UNIX); s.settimeout(20); s.connect(sys.argv[1])\n"
        "try:\n"
        '    s.sendall(b\'{"v": 1, "op": "token"}\\n\')\n'
        "    print(repr(s.recv(65536)))\n"
        "except (ConnectionResetError, BrokenPipeError):\n"
        "    print(repr(b''))\n"
    )
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code, agent.path], capture_output=True, text=True, timeout=60, preexec_fn=default_signals
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "b''"  # closed without a byte
    assert ask(Request("token"), agent.path)["ok"] is True  # ours still are


def test_no_refresh_token_ever_crosses_the_socket(laptop, server, agent):
    write_creds(laptop, expired(server))
    conn = connect(agent.path)
    said = b""
    for request in (b'{"v":1,"op":"token"}\n', b'{"v":1,"op":"status"}\n', b'{"v":1,"op":"token","min_ttl":60}\n'):
        conn.sendall(request)
        answer = read_answer(conn)
        said += json.dumps(answer).encode()
    assert b'refresh_token":' not in said.replace(b'"has_refresh_token":', b"").replace(b'"refresh_rejected":', b"")
    assert all(pair[1].encode() not in said for pair in server.issued)


def test_confirm_without_a_terminal_asks_in_the_wizard_and_refuses_while_none_is_open(laptop, server, tmp_path):
    """--confirm in the background: the place to ask is a wizard on this machine. The agent says
    so; while no wizard is open, a new connection's token request is refused with the reason."""
    write_creds(laptop, valid(server))
    running = RunningAgent(os.environ.copy(), "--confirm")
    try:
        key = pathlib.Path(running.path + ".key")
        assert stat.S_IMODE(key.stat().st_mode) == 0o600 and len(key.read_text()) == 32
        done = run_on_server(on_server(running.path, tmp_path / "elsewhere"), "token")
        assert done.returncode == 3 and done.stdout == ""  # try again once a wizard is open there
        assert "no wizard is open on its machine" in done.stderr
        assert "waiting for approval on your own machine" in done.stderr  # said at once, before the refusal
    finally:
        running.stop()
    assert not key.exists() and not key.parent.exists()  # the key goes with the socket
    assert "asks in the wizard (assistant-auth) open on this machine" in running.process.stderr.read()


def test_confirm_with_no_place_to_ask_does_not_start(laptop, tmp_path, monkeypatch, capsys):
    """The key cannot be made (here: refused by the system): the agent says so and does not start."""
    from tui.cli.agent import serve as agent_command
    from tui.core.agent.server import place

    private = pathlib.Path(tempfile.mkdtemp(prefix="aa-"))  # short: a socket's path is at most 108 bytes
    monkeypatch.setattr(tempfile, "tempdir", str(private))  # where the socket's directory would be made
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)

    def refused(path: str) -> str:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(place, "write_answer_key", refused)
    ns = argparse.Namespace(stop=False, lifetime=None, foreground=False, json=False, confirm=True)
    assert agent_command.run(ns) == 2
    said = capsys.readouterr()
    assert "--confirm has no place to ask you" in said.err and "did not start" in said.err and said.out == ""
    assert [p for p in private.rglob("*")] == []  # no socket, no directory left
    private.rmdir()


def test_a_stopped_agent_is_said_within_seconds(laptop, server, server_home):
    """SIGSTOP (Ctrl+Z) on the agent: the connection is accepted by the kernel but nothing is
    answered; without a `working` line for the stall time the client says so (exit 3)."""
    write_creds(laptop, valid(server))
    running = RunningAgent(os.environ.copy())
    env = on_server(running.path, server_home)
    try:
        os.kill(running.process.pid, signal.SIGSTOP)
        started = time.monotonic()
        done = run_on_server(env, "token")
        assert done.returncode == 3 and "did not answer in time" in done.stderr
        assert time.monotonic() - started < 45  # the stall (10 s), not the longest refresh (90 s)
    finally:
        os.kill(running.process.pid, signal.SIGCONT)
        running.stop()


def test_a_slow_answer_is_waited_for_while_the_agent_says_it_works(laptop, server):
    """An answer slower than the client's stall time (the official client holds the slot's lock):
    the `working` lines keep the client waiting, and the token comes."""
    from tests.core.test_cotenancy import competitor, finish, release, wait_locked

    write_creds(laptop, expired(server))
    holder = competitor(laptop, None, action="hold", protocol="flock", seconds=-1)  # until released
    wait_locked(holder)
    running = RunningAgent(os.environ.copy())
    try:
        said: list[dict] = []
        # the client's own stall (10 s without a line), not a shrunk one: a loaded machine (load 17 on
        # two cores) delayed the 2 s heartbeat past a 4 s stall and the test failed on its own clock
        asker = threading.Thread(target=lambda: said.append(ask(Request("token"), running.path, stall=STALL)))
        asker.start()
        time.sleep(STALL + 2)  # the phenomenon under test: an answer taking longer than the client's stall
        assert not said  # still waiting, not given up
        release(holder)
        asker.join(60)
        assert said and said[0]["access_token"] == server.issued[-1][0]
    finally:
        finish(holder)
        running.stop()


def test_a_socket_variable_naming_the_wrong_kind_of_file_is_said(laptop, server, server_home, tmp_path):
    """ASSISTANT_AUTH_SOCK naming a regular file, a directory, a FIFO or nothing: exit 3 with
    the line, at once, and nothing is read from or written to this machine's files."""
    regular, directory, fifo = tmp_path / "file", tmp_path / "dir", tmp_path / "fifo"
    regular.write_text("x")
    directory.mkdir()
    os.mkfifo(fifo)
    for target in (regular, directory, fifo, tmp_path / "absent"):
        started = time.monotonic()
        done = run_on_server(on_server(str(target), server_home), "token")
        assert done.returncode == 3 and done.stdout == "" and "is not answering" in done.stderr, target
        assert time.monotonic() - started < 30


def test_status_on_the_agents_own_machine_shows_its_files_and_the_agent(laptop, server, agent):
    """Right after signing in on the laptop, with its agent running: the local truth (the file, the
    state, who) and one line that the agent serves it, never "no refresh token is stored here"."""
    write_creds(laptop, valid(server))
    env = {**os.environ, "ASSISTANT_AUTH_SOCK": agent.path}
    status = run_on_server(env, "status")
    assert status.returncode == 0, status.stderr
    assert "cn: valid" in status.stdout and "no refresh token is stored" not in status.stdout
    assert f"The token agent (pid {agent.pid}) at {agent.path} serves this machine's sign-in" in status.stdout
    as_json = json.loads(run_on_server(env, "status", "--json").stdout)
    assert as_json["agent"] == {"socket": agent.path, "pid": agent.pid} and as_json["usable"] is True
