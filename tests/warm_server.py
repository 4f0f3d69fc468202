"""A Python started once per test worker that runs `assistant-auth` commands as forked processes.

`python tests/warm_server.py SOCKET`: loads the libraries the command line uses (the standard
library's and the third-party ones, never `tui`: each command imports the project itself, as a
fresh process does, so what our modules do at import is exercised every time), says `ready` on
stdout, then answers on the Unix socket SOCKET. A request is one JSON line (argv, environment,
working directory, umask) with three descriptors (stdin, stdout, stderr) passed along
(SCM_RIGHTS). For each the server forks a waiter, which forks the command:

- the command takes the descriptors as 0, 1 and 2, the directory, the umask (with
  `default_signals`, SIGINT, SIGTERM and SIGHUP as a fresh start after `tests.conftest.default_signals`
  has them) and exactly the
  environment of the request, new standard streams on them as the interpreter would make
  (`tests.commands` sends only environments whose locale is UTF-8 and whose PYTHON* settings
  are the ones this server started with), the console script's `sys.argv` and `sys.path[0]`, and runs
  `tui.cli.run` as the console script does, then ends as the
  interpreter does (non-daemon threads joined, atexit, the final flush) without freeing what the
  server loaded; anything but SystemExit escaping `run` gets the interpreter's own report and exit;
- the waiter says the command's pid, then its wait status and CPU-seconds, on the request's
  connection.

The server itself waits for nothing: its waiters are reaped by the kernel (SIGCHLD ignored, and set
back to the default in every child). It ends when its stdin closes (the worker that started it
went away) or on SIGTERM."""

from __future__ import annotations

import array
import gc
import io
import json
import os
import selectors
import signal
import socket
import sys

# what the command line's processes load besides the project (the heavy ones: the HTTP client and
# its TLS, the TOML editor, the event loop, argparse, gettext)
PRELOAD = (
    "argparse",
    "asyncio",
    "base64",
    "concurrent.futures",
    "contextlib",
    "dataclasses",
    "datetime",
    "enum",
    "fcntl",
    "gettext",
    "hashlib",
    "json",
    "locale",
    "logging",
    "pathlib",
    "re",
    "secrets",
    "selectors",
    "shlex",
    "shutil",
    "socket",
    "ssl",
    "stat",
    "subprocess",
    "tempfile",
    "threading",
    "typing",
    "unicodedata",
    "urllib.parse",
    "uuid",
    "httpx",
    "tomlkit",
)


# this interpreter was started unbuffered (-u, PYTHONUNBUFFERED): so is each command's output
UNBUFFERED = bool(getattr(sys.stdout, "write_through", False))


def _preload() -> None:
    import importlib

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:  # a library this environment lacks: the command imports it (and fails) itself
            pass


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    """One request: its JSON line and the three descriptors that came with it."""
    fds = array.array("i")
    data = b""
    while not data.endswith(b"\n"):
        msg, ancdata, _flags, _addr = conn.recvmsg(1 << 20, socket.CMSG_SPACE(3 * fds.itemsize))
        if not msg:
            raise EOFError("the client went away")
        data += msg
        for level, kind, payload in ancdata:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
    return json.loads(data), list(fds)


def _become_the_command(request: dict, fds: list[int]) -> None:
    """In the forked command: its descriptors, place, environment and streams."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if request.get("default_signals"):  # as `tests.conftest.default_signals` before a fresh start
        signal.signal(signal.SIGINT, signal.default_int_handler)  # what Python makes of SIG_DFL
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    import locale

    try:
        locale.setlocale(locale.LC_CTYPE, "")  # as the interpreter does at its start
    except locale.Error:
        pass
    sys.stdin = sys.__stdin__ = _stream(0, "r", "strict")
    sys.stdout = sys.__stdout__ = _stream(1, "w", "strict")
    sys.stderr = sys.__stderr__ = _stream(2, "w", "backslashreplace")
    sys.argv = list(request["argv"])
    sys.path.insert(0, os.path.dirname(request["argv"][0]))  # the console script's own directory


def _stream(fd: int, mode: str, errors: str) -> io.TextIOWrapper:
    """A standard stream as the interpreter makes it in a UTF-8 locale: line-buffered on a
    terminal (stderr always), unbuffered writes under PYTHONUNBUFFERED (`-u`)."""
    unbuffered = mode == "w" and UNBUFFERED
    raw = open(fd, mode + "b", buffering=0 if unbuffered else -1, closefd=False)
    line = mode == "w" and (fd == 2 or os.isatty(fd))
    return io.TextIOWrapper(
        raw,
        encoding="utf-8",
        errors=errors,
        newline="\n",
        line_buffering=line and not unbuffered,
        write_through=unbuffered,
    )


def _wait_for(conn: socket.socket, pid: int) -> None:
    """In the waiter: the command's pid, then its wait status and the CPU-seconds it spent (with
    the children it waited for), on the request's connection."""
    conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    conn.sendall(json.dumps({"status": status, "cpu": cpu}).encode() + b"\n")


def serve(path: str) -> tuple[dict, list[int]]:
    """Answers requests until the worker goes away; returns only in a forked command."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # waiters are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    watch = selectors.DefaultSelector()
    watch.register(listener, selectors.EVENT_READ)
    watch.register(sys.stdin, selectors.EVENT_READ)
    while True:
        for key, _ in watch.select():
            if key.fileobj is sys.stdin:
                os._exit(0)
            conn, _ = listener.accept()
            try:
                request, fds = _receive(conn)
            except (OSError, EOFError, ValueError):
                conn.close()
                continue
            if os.fork() == 0:  # the waiter
                listener.close()
                watch.close()
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                pid = os.fork()
                if pid == 0:  # the command
                    conn.close()
                    return request, fds
                for fd in fds:
                    os.close(fd)
                try:
                    _wait_for(conn, pid)
                finally:
                    os._exit(0)
            for fd in fds:
                os.close(fd)
            conn.close()


def _exit(code: object) -> None:
    """The interpreter's exit for `sys.exit(code)` as a user sees it, without freeing the modules
    the server loaded (that would touch, and so copy, every page this process shares with it):
    non-daemon threads joined, atexit's functions (weakref finalizers too), the standard streams
    flushed (a failure is exit status 120, as the interpreter's), the status of `sys.exit`."""
    import atexit
    import threading

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code & 0xFF
    else:
        print(code, file=sys.stderr)
        status = 1
    threading._shutdown()  # type: ignore[attr-defined] - what the interpreter's own exit calls
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:  # noqa: BLE001 - as the interpreter: said, and the status is 120
            status = 120
    os._exit(status)


if __name__ == "__main__":
    del sys.path[0]  # this file's directory (tests/): nothing is imported from there
    _preload()
    gc.freeze()  # what is loaded stays shared: a child's collections never touch (and so copy) it
    request, fds = serve(sys.argv[1])
    _become_the_command(request, fds)
    del request, fds
    from tui.cli import run

    try:
        run()  # as the console script: it ends the process itself (`token`), or raises SystemExit
        returned: object = None
    except SystemExit as done:
        returned = done.code
    _exit(returned)
