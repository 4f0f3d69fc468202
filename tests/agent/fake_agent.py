"""A program that answers at `ASSISTANT_AUTH_SOCK` as an attacker would: a Unix socket served from a
thread, whose answers the test writes (hostile values in every field), or that trickles one byte
at a time and never ends a line."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable

Answer = Callable[[dict], bytes | None]


class FakeAgent:
    def __init__(self, where: str, answer: Answer | None = None, trickle: float | None = None) -> None:
        self.path = where
        self.answer = answer
        self.trickle = trickle  # seconds between single bytes, never a newline
        self.requests: list[dict] = []
        self.connected = threading.Event()
        self.asked = threading.Event()
        self.done = threading.Event()
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(where)
        os.chmod(where, 0o600)
        self.listener.listen(16)
        self.listener.settimeout(0.2)
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.done.is_set():
            try:
                conn, _ = self.listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        self.connected.set()
        reader = conn.makefile("rb")
        try:
            while not self.done.is_set():
                line = reader.readline(8192)
                if not line:
                    return
                request = json.loads(line)
                self.requests.append(request)
                self.asked.set()
                if self.trickle is not None:
                    while not self.done.is_set():
                        conn.sendall(b" ")
                        time.sleep(self.trickle)
                    return
                said = self.answer(request) if self.answer else None
                if said is None:
                    return
                conn.sendall(said)
        except OSError:
            return
        finally:
            with contextlib.suppress(OSError):
                reader.close()
            conn.close()

    def close(self) -> None:
        self.done.set()
        self.listener.close()
        self.thread.join(10)
        with contextlib.suppress(OSError):
            os.unlink(self.path)


def line(data: dict) -> bytes:
    return (json.dumps(data) + "\n").encode()
