"""Where an agent's socket lives: a new private directory (0700) made for it, like ssh-agent's
`$TMPDIR/ssh-XXXXXXXXXX/agent.<pid>`, holding the socket (0600). The directory is the agent's
alone: it is removed with the socket when the agent stops."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import stat
import sys
import tempfile

from tui.core.agent.protocol import PID_ENV, SOCKET_ENV
from tui.core.phrase import N_, Phrase

__all__ = ["PID_ENV", "SOCKET_ENV", "NoPlace", "fits", "listen", "read_answer_key", "remove", "write_answer_key"]


SUN_PATH = 104 if sys.platform == "darwin" or "bsd" in sys.platform else 108  # bytes, the final NUL included
PREFIX = "assistant-auth-"


NO_PLACE = N_(
    "assistant-auth: no directory can hold the agent's socket: {tried}. A socket's path must be shorter than "
    "{limit} bytes: set TMPDIR to a short directory of yours (export TMPDIR=/tmp), then start it again"
)


class NoPlace(Exception):
    """No directory can hold the agent's socket; the message says why and what to do."""


def _bases() -> list[str]:
    """Where the agent's directory may go, in order: `$XDG_RUNTIME_DIR` when it is a private
    directory of ours (a login session's), the system's temporary directory (`$TMPDIR`), /tmp.
    The new directory is private in each."""
    bases = []
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime:
        with contextlib.suppress(OSError):
            info = os.stat(runtime)
            if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o077:
                bases.append(runtime)
    for base in (tempfile.gettempdir(), "/tmp"):  # noqa: S108 - the short base of last resort
        if base not in bases:
            bases.append(base)
    return bases


def fits(path: str) -> bool:
    """A Unix socket can be bound at `path` (the system's `sun_path` holds it and its NUL)."""
    return len(os.fsencode(path)) < SUN_PATH


def _socket_name() -> str:
    return f"agent.{os.getpid()}"


def _directory(bases: list[str]) -> str:
    """A new private directory under the first base where the socket's path fits (NoPlace, said,
    when none can hold it)."""
    tried = []
    for base in bases:
        longest = os.path.join(base, PREFIX + "x" * 8, _socket_name())  # mkdtemp's name: 8 characters
        if not fits(longest):
            tried.append(f"{base} ({len(os.fsencode(longest))} bytes)")
            continue
        try:
            return tempfile.mkdtemp(prefix=PREFIX, dir=base)  # 0700, O_EXCL
        except OSError as exc:
            tried.append(f"{base} ({exc.strerror or exc})")
    raise NoPlace(Phrase(NO_PLACE, tried="; ".join(tried), limit=SUN_PATH))


def listen(directory: str | None = None) -> tuple[socket.socket, str]:
    """A listening Unix socket in a new private directory: (the socket, its path). Bound before
    the agent forks, so the path printed is one that answers. NoPlace when no base fits."""
    where = _directory([directory] if directory else _bases())
    path = os.path.join(where, _socket_name())
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
    """The socket, the answer key and their directory go (only the directory this agent made:
    never another's)."""
    with contextlib.suppress(OSError):
        os.unlink(path)
    with contextlib.suppress(OSError):
        os.unlink(os.path.join(os.path.dirname(path), ANSWER_KEY))
    with contextlib.suppress(OSError):
        os.rmdir(os.path.dirname(path))


# -- who may answer `--confirm`'s questions ---------------------------------------------------------
#
# A wizard answers for the agent only when it runs on the agent's own machine, as the agent's
# user: it proves it by reading a random key from the agent's private directory. A process on a
# server, reaching the agent through the forwarded socket, cannot read that file; whatever
# forwards the socket (ssh, socat, …) is never the peer that matters.

ANSWER_KEY = "answer-key"
KEY_BYTES = 32  # hex characters: 128 bits


def write_answer_key(path: str) -> str:
    """A new random key beside the agent's socket `path` (0600, created, never through a link)."""
    key = secrets.token_hex(KEY_BYTES // 2)
    where = os.path.join(os.path.dirname(path), ANSWER_KEY)
    fd = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(fd, key.encode("ascii"))
    finally:
        os.close(fd)
    return key


def read_answer_key(path: str) -> str | None:
    """The answer key of the agent at socket `path`, or None: no key (the agent does not ask),
    not a private regular file of ours, or not readable here (another machine's agent)."""
    where = os.path.join(os.path.dirname(path), ANSWER_KEY)
    try:
        fd = os.open(where, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
            return None
        data = os.read(fd, KEY_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    key = data.decode("ascii", "replace")
    return key if len(key) == KEY_BYTES and all(ch in "0123456789abcdef" for ch in key) else None
