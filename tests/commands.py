"""`assistant-auth` as a process, for tests that need only its answer (exit code, stdout, stderr).

`run_command` gives what `subprocess.run([SCRIPT, *args], capture_output=True, text=True, ...)`
gives. The command is a real process of its own (its own descriptors, environment, directory,
umask, exit status and signals; it imports the project itself and runs `tui.cli.run` as the
console script does), forked from a Python this worker started once with the libraries loaded
(`tests/warm_server.py`): a fresh interpreter and its imports cost about 0.1 s of CPU per command,
and the suite runs well over a thousand of them.

Where the interpreter's own start is part of what a test looks at, the console script is started
afresh instead: an environment whose PYTHON* settings are not the run's or whose locale's encoding
is not UTF-8 (the standard streams are the interpreter's choice there), or a test that asks
(`fresh=True`). Tests of signals, terminals, closed descriptors or limits start their processes
with `subprocess` themselves."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import pathlib
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SCRIPT = shutil.which("assistant-auth", path=str(pathlib.Path(sys.executable).parent))

_lock = threading.Lock()
_server: tuple[subprocess.Popen, str] | None = None
# CPU-seconds of the forked commands this process ran: they are the server's grandchildren, not
# this process's children (tests/scheduling.py adds them to what a test spent)
cpu_seconds = 0.0


def _locale_of(env: dict[str, str]) -> str:
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        if env.get(name):
            return env[name]
    return "C"


def _python_settings(env: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in env.items() if name.startswith("PYTHON")}


# the interpreter settings of the run (as the worker was started, before any test changed its
# environment): the warm server starts with them, and serves only environments that have them
_SETTINGS = _python_settings(dict(os.environ))


def warm_fits(env: dict[str, str]) -> bool:
    """The forked command starts as a fresh interpreter would in `env`: its streams are UTF-8
    (a UTF-8 locale; C and POSIX are coerced by the interpreter, left to a fresh start) and its
    PYTHON* settings are the ones the server started with."""
    if _python_settings(env) != _SETTINGS:
        return False
    spelled = _locale_of(env).rsplit(".", 1)[-1].split("@", 1)[0].replace("-", "").lower()
    return "." in _locale_of(env) and spelled == "utf8"


def _start() -> tuple[subprocess.Popen, str]:
    place = tempfile.mkdtemp(prefix="aa-warm-")
    path = os.path.join(place, "s")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(_SETTINGS, LC_ALL="C.UTF-8")
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "warm_server.py"), path],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        cwd=place,
        preexec_fn=_defaults,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    if line != b"ready\n":
        server.kill()
        raise RuntimeError(f"the warm server did not start: {line!r}")
    atexit.register(_stop, server, place)
    return server, path


def _defaults() -> None:
    """The server's children start with the signal dispositions a fresh process of this worker
    would have: what the worker inherited (an ignored SIGINT of a background run stays ignored)."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)


def _stop(server: subprocess.Popen, place: str) -> None:
    server.kill()
    server.wait()
    shutil.rmtree(place, ignore_errors=True)


def _path() -> str:
    global _server
    with _lock:
        if _server is None or _server[0].poll() is not None:
            _server = _start()
        return _server[1]


def run_command(
    args: list[str] | tuple[str, ...],
    *,
    env: dict[str, str] | None = None,
    input: str | None = None,
    timeout: float | None = 60,
    cwd: str | os.PathLike | None = None,
    stdin: int | None = None,
    fresh: bool = False,
) -> subprocess.CompletedProcess:
    """`assistant-auth ARGS` as `subprocess.run(..., capture_output=True, text=True)` would run it."""
    env = dict(os.environ if env is None else env)
    command = [SCRIPT or "assistant-auth", *args]
    if fresh or SCRIPT is None or not warm_fits(env) or (stdin is not None and input is not None):
        return subprocess.run(
            command, capture_output=True, text=True, env=env, input=input, timeout=timeout, cwd=cwd, stdin=stdin
        )
    return _forked(command, env, input, timeout, os.fspath(cwd) if cwd is not None else os.getcwd(), stdin)


def _forked(
    command: list[str], env: dict[str, str], input: str | None, timeout: float | None, cwd: str, stdin: int | None
) -> subprocess.CompletedProcess:
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if input is not None else (None, None)
    if stdin == subprocess.DEVNULL:
        in_r = os.open(os.devnull, os.O_RDONLY)
    given_in = in_r if in_r is not None else (stdin if stdin is not None else 0)
    try:
        conn = send(command, env, cwd, [given_in, out_w, err_w])
    finally:
        for fd in (out_w, err_w, in_r):
            if fd is not None:
                os.close(fd)
    with conn, conn.makefile("rb") as answers:
        pid = json.loads(answers.readline())["pid"]
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            stdout, stderr = _collect(out_r, err_r, in_w, (input or "").encode(), deadline)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):  # it ended as the time ran out
                os.kill(pid, signal.SIGKILL)
            raise subprocess.TimeoutExpired(command, timeout or 0) from None
        finally:
            os.close(out_r)
            os.close(err_r)
            code = ended(answers.readline())  # the waiter's word once the command is gone
    return subprocess.CompletedProcess(command, code, _text(stdout), _text(stderr))


def send(command: list[str], env: dict[str, str], cwd: str, fds: list[int], **extra: object) -> socket.socket:
    """One request to this worker's warm server: the command with its environment, directory,
    this process's umask (and `extra`, e.g. `default_signals`), and `fds` as its stdin, stdout and
    stderr. Returns the connection its waiter answers on: the pid, then how it ended (`ended`)."""
    umask = os.umask(0o22)
    os.umask(umask)
    request = json.dumps({"argv": command, "env": env, "cwd": cwd, "umask": umask, **extra}).encode() + b"\n"
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(_path())
        conn.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, _ints(fds))])
    except BaseException:
        conn.close()
        raise
    return conn


def ended(line: bytes) -> int:
    """The waiter's last line: the command's exit code as Popen says it (minus a signal's
    number); the CPU it spent is counted for the test (`cpu_seconds`)."""
    global cpu_seconds
    done = json.loads(line)
    cpu_seconds += done["cpu"]
    return _code_of(done["status"])


def _ints(fds: list[int]) -> bytes:
    import array

    return array.array("i", fds).tobytes()


def _collect(out_r: int, err_r: int, in_w: int | None, data: bytes, deadline: float | None) -> tuple[bytes, bytes]:
    """stdout and stderr to their ends (and `data` written to stdin meanwhile), as `communicate`."""
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    with selectors.DefaultSelector() as watch:
        watch.register(out_r, selectors.EVENT_READ)
        watch.register(err_r, selectors.EVENT_READ)
        if in_w is not None:
            if data:
                os.set_blocking(in_w, False)
                watch.register(in_w, selectors.EVENT_WRITE)
            else:
                os.close(in_w)
        while watch.get_map():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                if in_w is not None and in_w in watch.get_map():
                    os.close(in_w)
                raise subprocess.TimeoutExpired("assistant-auth", 0)
            for key, _ in watch.select(left):
                fd = key.fd
                if fd == in_w:
                    try:
                        sent = os.write(fd, data)
                    except BrokenPipeError:
                        sent = len(data)
                    data = data[sent:]
                    if not data:
                        watch.unregister(fd)
                        os.close(fd)
                    continue
                chunk = os.read(fd, 65536)
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    watch.unregister(fd)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


def _code_of(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _text(data: bytes) -> str:
    """As `subprocess.run(text=True)` reads it: the locale's encoding, universal newlines."""
    import locale

    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")
