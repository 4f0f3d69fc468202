"""The token agent through a real OpenSSH server on 127.0.0.1 (a free port, throwaway host and user
keys in a temporary directory) and the real `ssh -R`: on the "server" side `token`, `exec` and
`status` work through the forwarded socket with no credential file there, the refresh happens on
the "laptop" side, and the server's home never holds a refresh token at any moment.

Where `sshd` is not installed these tests are skipped; `.ci/run` installs OpenSSH so CI runs them."""

from __future__ import annotations

import json
import os
import pathlib
import secrets
import shlex
import subprocess
import threading
import time

from tests.agent.conftest import RunningAgent, files_under
from tests.agent.openssh import SshServer, forward, listening, needs_openssh, relay_and_read, relaying_sshd, remote
from tests.cli.test_cli import expired, valid
from tests.commands import run_command
from tests.conftest import default_signals, write_creds
from tests.waiting import PATIENCE
from tui.demo.server import TOKEN_PATH

pytestmark = needs_openssh


class RefreshTokenWatch:
    """Looks through the server's home all along the test: never a refresh token there."""

    def __init__(self, where: pathlib.Path, secrets_of, field_too: bool = True) -> None:
        """`field_too`: the field's name is a finding too (False where a relay writes it empty)."""
        self.where, self.secrets_of, self.field_too = where, secrets_of, field_too
        self.seen: list[str] = []
        self.looks = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        while not self.done.is_set():
            for path in self.where.rglob("*"):
                try:
                    text = path.read_text(errors="replace") if path.is_file() else ""
                except OSError:
                    continue
                if (self.field_too and "refresh_token" in text) or any(secret in text for secret in self.secrets_of()):
                    self.seen.append(str(path))
            self.looks += 1
            time.sleep(0.01)

    def stop(self) -> list[str]:
        self.done.set()
        self.thread.join(10)
        return self.seen


def test_token_exec_and_status_on_the_server_through_assistant_auth_ssh(system, laptop, server, sshd, server_home):
    path = write_creds(laptop, expired(server))
    watch = RefreshTokenWatch(server_home, lambda: [pair[1] for pair in server.issued])
    try:

        def on_server(*words: str) -> subprocess.CompletedProcess:
            return run_command(
                ["ssh", *sshd.options(), sshd.host, *remote(server_home, *words)],
                env=os.environ.copy(),
                timeout=120,
                stdin=subprocess.DEVNULL,
            )

        def on_server_shell(script: str) -> subprocess.CompletedProcess:
            return run_command(
                ["ssh", *sshd.options(), sshd.host, "sh", "-c", shlex.quote(script)],
                env=os.environ.copy(),
                timeout=120,
                stdin=subprocess.DEVNULL,
            )

        token = on_server("token")
        assert token.returncode == 0, token.stderr
        assert token.stdout.strip() == server.issued[-1][0]
        assert server.count(TOKEN_PATH, "refresh_token") == 1  # refreshed once, on the laptop
        assert path.read_text().count(server.issued[-1][1]) == 1
        ran = on_server("exec", "--", "sh", "-c", "'test -n \"$ASSISTANT_ACCESS_TOKEN\" && echo got'")
        assert ran.returncode == 0 and ran.stdout == "got\n", ran.stderr
        status = on_server("status")
        assert status.returncode == 0 and "Served by the token agent on your own machine" in status.stdout
        where = on_server_shell('printf "%s\\n" "$ASSISTANT_AUTH_SOCK"; test -S "$ASSISTANT_AUTH_SOCK" && echo socket')
        path, there = where.stdout.split()
        assert there == "socket" and path.startswith("/tmp/assistant-auth-")  # while connected…
        assert not os.path.lexists(path)  # …and removed when the command ended
    finally:
        seen = watch.stop()
    assert seen == [] and watch.looks > 10
    assert files_under(server_home) == []
    assert server.count(TOKEN_PATH, "refresh_token") == 1


def test_a_hundred_tokens_through_four_forwarded_connections_make_one_refresh(laptop, server, sshd, server_home):
    write_creds(laptop, expired(server))
    server.refresh_delay = 0.5
    agent = RunningAgent(os.environ.copy())
    try:
        connections = []
        for _connection in range(4):
            forwarded = f"/tmp/assistant-auth-test-{secrets.token_hex(6)}.sock"
            one = " ".join(
                shlex.quote(word) for word in ["env", f"ASSISTANT_AUTH_SOCK={forwarded}", *remote(server_home, "token")]
            )
            script = f"trap 'rm -f {forwarded}' EXIT; for i in $(seq 25); do {one} & done; wait"
            connections.append(
                forward(sshd, forwarded, agent.path, script, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            )
        said = [connection.communicate(timeout=240) for connection in connections]
    finally:
        agent.stop()
    tokens = [line for out, _err in said for line in out.splitlines()]
    assert len(tokens) == 100, [err for _out, err in said]
    assert set(tokens) == {server.issued[-1][0]}
    assert server.count(TOKEN_PATH, "refresh_token") == 1
    assert files_under(server_home) == []


def test_a_dropped_connection_ends_the_servers_clients_with_exit_3(laptop, server, sshd, server_home):
    write_creds(laptop, valid(server))
    agent = RunningAgent(os.environ.copy())
    forwarded = f"/tmp/assistant-auth-test-{secrets.token_hex(6)}.sock"
    connection = forward(sshd, forwarded, agent.path, None, stderr=subprocess.PIPE, preexec_fn=default_signals)
    env = {**os.environ, "ASSISTANT_CODE_HOME": str(server_home), "ASSISTANT_AUTH_SOCK": forwarded}
    try:
        deadline = time.monotonic() + PATIENCE
        while not listening(forwarded):  # the forwarding is up: sshd listens there (it binds first)
            assert connection.poll() is None and time.monotonic() < deadline, connection.stderr.read()
            time.sleep(0.05)
        assert run_command(["token"], env=env, timeout=60).returncode == 0
        connection.kill()  # the connection drops
        connection.wait()
        started = time.monotonic()
        done = run_command(["token"], env=env, timeout=60)
        assert done.returncode == 3 and "is not answering" in done.stderr and forwarded in done.stderr
        assert time.monotonic() - started < 30
    finally:
        connection.kill()
        agent.stop()
        if os.path.lexists(forwarded):
            os.unlink(forwarded)
    assert files_under(server_home) == []


def test_a_server_that_refuses_socket_forwarding_is_explained(laptop, server, tmp_path, server_home):
    write_creds(laptop, valid(server))
    refusing = SshServer(tmp_path / "refusing", forwarding=False)
    try:
        done = run_command(
            ["ssh", *refusing.options(), refusing.host, *remote(server_home, "token")],
            env=os.environ.copy(),
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    finally:
        refusing.stop()
    assert done.returncode == 255
    assert "remote port forwarding failed" in done.stderr.lower() or "forwarding" in done.stderr.lower()
    assert "AllowStreamLocalForwarding" in done.stderr and "assistant-auth help agent" in done.stderr


def relay_processes(server_home: pathlib.Path) -> list[int]:
    """This user's `assistant-auth relay` processes serving `server_home`."""
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"relay" in words and f"ASSISTANT_CODE_HOME={server_home}".encode() in environ:
            found.append(int(entry.name))
    return found


def test_ssh_relay_fills_the_servers_file_while_connected(laptop, server, tmp_path, server_home):
    """`assistant-auth ssh --relay`: the official client's file on the server holds the laptop's
    access token and no refresh token; the relay ends with the connection."""
    laptop_file = write_creds(laptop, expired(server))
    relaying = relaying_sshd(tmp_path / "relaying", server_home)
    watch = RefreshTokenWatch(server_home, lambda: [pair[1] for pair in server.issued], field_too=False)
    try:
        done = relay_and_read(relaying, server_home)
        assert done.returncode == 0, done.stderr
        relayed = json.loads(done.stdout)
        assert relayed["access_token"] == server.issued[-1][0] == json.loads(laptop_file.read_text())["access_token"]
        assert relayed["refresh_token"] == "" and relayed["expires_in"] == 0
        assert server.count(TOKEN_PATH, "refresh_token") == 1  # refreshed once, on the laptop
        deadline = time.monotonic() + 60
        while relay_processes(server_home):  # the exact state: the relay has ended with the connection
            assert time.monotonic() < deadline, "the relay outlived the connection"
            time.sleep(0.05)
    finally:
        seen = watch.stop()
        relaying.stop()
    assert seen == [] and watch.looks > 0
    assert not any(pair[1] in done.stdout + done.stderr for pair in server.issued)
