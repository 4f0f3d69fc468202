"""Where an agent's socket lives: a new private directory (0700) made for it, like ssh-agent's
`$TMPDIR/ssh-XXXXXXXXXX/agent.<pid>`, holding the socket (0600). The directory is the agent's
alone: it is removed with the socket when the agent stops."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import tempfile

from tui.core.agent.protocol import PID_ENV, SOCKET_ENV

__all__ = ["PID_ENV", "SOCKET_ENV", "listen", "remove"]


def _base() -> str:
    """`$XDG_RUNTIME_DIR` when it is a private directory of ours (a login session's), else the
    system's temporary directory (`$TMPDIR`, /tmp): the new directory is private either way."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime:
        with contextlib.suppress(OSError):
            info = os.stat(runtime)
            if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o077:
                return runtime
    return tempfile.gettempdir()


def listen(directory: str | None = None) -> tuple[socket.socket, str]:
    """A listening Unix socket in a new private directory: (the socket, its path). Bound before
    the agent forks, so the path printed is one that answers."""
    where = tempfile.mkdtemp(prefix="assistant-auth-", dir=directory or _base())  # 0700, O_EXCL
    path = os.path.join(where, f"agent.{os.getpid()}")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        old = os.umask(0o177)  # the socket is 0600 from the moment it exists
        try:
            listener.bind(path)
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        listener.listen(128)
    except BaseException:
        listener.close()
        remove(path)
        raise
    return listener, path


def remove(path: str) -> None:
    """The socket and its directory go (only the directory this agent made: never another's)."""
    with contextlib.suppress(OSError):
        os.unlink(path)
    with contextlib.suppress(OSError):
        os.rmdir(os.path.dirname(path))
