"""`assistant-auth` as a process a test talks to while it runs (an agent, a waiting `login`):
`spawn_command` gives what `subprocess.Popen([SCRIPT, *args], ...)` gives, forked from this
worker's warm Python (`tests/commands.py`, `tests/warm_server.py`) where the environment lets it.

The process is the command's own, as with Popen: its pid takes signals (SIGSTOP, SIGCONT, SIGTERM,
SIGKILL), its pipes are the test's, its exit status and the CPU it spent come back when it ends.
What differs is who waits for it: the warm server's waiter, not this process, so the status comes
over the request's connection (`poll`, `wait`). Its process group and session are this worker's,
as a Popen child's are. Where the environment does not fit a warm start (`commands.warm_fits`),
or a test asks (`fresh=True`), it is `subprocess.Popen` itself."""

from __future__ import annotations

import contextlib
import io
import json
import locale
import os
import select
import signal
import subprocess
import threading
import time
from typing import IO, Any

from tests import commands


def spawn_command(
    args: list[str] | tuple[str, ...],
    *,
    env: dict[str, str] | None = None,
    stdin: Any = None,
    stdout: Any = None,
    stderr: Any = None,
    text: bool = False,
    cwd: str | os.PathLike | None = None,
    default_signals: bool = False,
    fresh: bool = False,
) -> Any:
    """`subprocess.Popen([SCRIPT, *args], ...)` with these arguments (`default_signals`: the
    `preexec_fn` of `tests.conftest.default_signals`); a `Spawned` or a `Popen`, used alike."""
    env = dict(os.environ if env is None else env)
    command = [commands.SCRIPT or "assistant-auth", *args]
    if fresh or commands.SCRIPT is None or not commands.warm_fits(env):
        from tests.conftest import default_signals as defaults

        return subprocess.Popen(
            command,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            text=text,
            env=env,
            cwd=cwd,
            preexec_fn=defaults if default_signals else None,
        )
    return Spawned(command, env, stdin, stdout, stderr, text, os.fspath(cwd or os.getcwd()), default_signals)


def _child_end(given: Any, standard: int, reading: bool) -> tuple[int, int | None, bool]:
    """(the descriptor the command gets, the pipe end this process keeps, close the first here)."""
    if given == subprocess.PIPE:
        read_end, write_end = os.pipe()
        return (read_end, write_end, True) if reading else (write_end, read_end, True)
    if given == subprocess.DEVNULL:
        return os.open(os.devnull, os.O_RDONLY if reading else os.O_WRONLY), None, True
    if given is None:
        return standard, None, False
    return (given if isinstance(given, int) else given.fileno()), None, False


class Spawned:
    """The Popen-alike of a command forked by the warm server."""

    def __init__(
        self,
        command: list[str],
        env: dict[str, str],
        stdin: Any,
        stdout: Any,
        stderr: Any,
        text: bool,
        cwd: str,
        default_signals: bool,
    ) -> None:
        self.args = command
        self.returncode: int | None = None
        ends = [_child_end(stdin, 0, True), _child_end(stdout, 1, False), _child_end(stderr, 2, False)]
        self._buffer = b""
        try:
            self._conn = commands.send(command, env, cwd, [end[0] for end in ends], default_signals=default_signals)
        finally:
            for child, _kept, close in ends:
                if close:
                    os.close(child)
        self.stdin = self._wrap(ends[0][1], "wb", text)
        self.stdout = self._wrap(ends[1][1], "rb", text)
        self.stderr = self._wrap(ends[2][1], "rb", text)
        line = self._line(None)
        if line is None:  # pragma: no cover - the server always says the pid
            raise RuntimeError("the warm server did not start the command")
        self.pid: int = json.loads(line)["pid"]

    @staticmethod
    def _wrap(fd: int | None, mode: str, text: bool) -> IO[Any] | None:
        if fd is None:
            return None
        raw = open(fd, mode)  # noqa: SIM115 - owned by the Spawned, closed as Popen closes its pipes
        if not text:
            return raw
        encoding = locale.getpreferredencoding(False)
        return io.TextIOWrapper(raw, encoding=encoding, write_through=mode == "wb")  # type: ignore[arg-type]

    def _line(self, timeout: float | None) -> bytes | None:
        """The waiter's next line, or None when `timeout` passes first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if not select.select([self._conn], [], [], left)[0]:
                return None
            chunk = self._conn.recv(4096)
            if not chunk:
                raise RuntimeError("the warm server's waiter went away")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def _ended(self, timeout: float | None) -> bool:
        if self.returncode is not None:
            return True
        line = self._line(timeout)
        if line is None:
            return False
        self.returncode = commands.ended(line)
        self._conn.close()
        return True

    def poll(self) -> int | None:
        self._ended(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(self, input: Any = None, timeout: float | None = None) -> tuple[Any, Any]:
        """As Popen's: stdout and stderr read to their ends while `input` is written and stdin
        closed (never one before the other: a full pipe would stop both sides), then the exit
        waited for."""
        read: dict[str, Any] = {}
        workers = [
            threading.Thread(target=lambda n=name, s=stream: read.__setitem__(n, s.read()), daemon=True)
            for name, stream in (("out", self.stdout), ("err", self.stderr))
            if stream is not None
        ]
        if self.stdin is not None:
            workers.append(threading.Thread(target=self._feed, args=(input,), daemon=True))
        deadline = None if timeout is None else time.monotonic() + timeout
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(None if deadline is None else max(deadline - time.monotonic(), 0.0))
            if worker.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
        self.wait(None if deadline is None else max(deadline - time.monotonic(), 0.0))
        return read.get("out"), read.get("err")

    def _feed(self, data: Any) -> None:
        assert self.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            if data:
                self.stdin.write(data)
            self.stdin.close()

    def __enter__(self) -> Spawned:
        return self

    def __exit__(self, *_exc: object) -> None:
        for stream in (self.stdout, self.stderr, self.stdin):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self.wait()
