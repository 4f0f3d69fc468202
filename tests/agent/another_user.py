"""Another user on a shared machine: a process running as `nobody` that binds a socket where the
person's agent is looked for and answers every request with a token of its own. Needs root (to
start a process as another uid) and a system Python that uid can run; skipped otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
import time

import pytest

from tests.waiting import until
from tui.core.agent.wire.protocol import VERSION

NOBODY = 65534
SYSTEM_PYTHON = next((p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.access(p, os.X_OK)), None)
needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or SYSTEM_PYTHON is None,
    reason="needs root to run a process as another user, and a system python3 that user can run",
)
STOLEN = "STOLEN-access-token-of-another-user"

SERVER = textwrap.dedent(
    """
    import json, os, socket, sys, threading
    path, version, token = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o777)  # anyone may connect: the trap is set
    listener.listen(8)
    print("listening", flush=True)
    def serve(conn):
        reader = conn.makefile("rb")
        for line in reader:
            answer = {"v": version, "ok": True, "access_token": token, "expires_at": 4102444800,
                      "slot": "assistant-code", "region": "cn", "identity": "someone-else",
                      "alive": True, "asked_from": "local", "pid": os.getpid(), "home": os.getcwd(),
                      "slots": [{"name": "assistant-code", "state": "valid", "usable": True}], "default": "assistant-code"}
            conn.sendall((json.dumps(answer) + "\\n").encode())
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()
    """
)


class AnotherUsersAgent:
    """A socket at `path`, bound and served by uid `nobody`, answering everything as an agent."""

    def __init__(self, path: str) -> None:
        self.path = path

        def as_nobody() -> None:
            os.setgid(NOBODY)
            os.setuid(NOBODY)

        self.process = subprocess.Popen(
            [SYSTEM_PYTHON or "python3", "-I", "-c", SERVER, path, str(VERSION), STOLEN],
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=as_nobody,
            cwd="/",
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "listening"
        until(lambda: os.path.exists(path), what="the other user's socket")

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=30)
        if os.path.lexists(self.path):
            os.unlink(self.path)


def ping_json(path: str) -> dict:
    """What the other user's socket answers, asked directly (for the tests' own look)."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(5)
        conn.connect(path)
        conn.sendall(b'{"v": 1, "op": "ping"}\n')
        deadline = time.monotonic() + 5
        data = b""
        while b"\n" not in data and time.monotonic() < deadline:
            data += conn.recv(65536)
    return json.loads(data)
