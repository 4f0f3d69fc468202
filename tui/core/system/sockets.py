"""Unix sockets as the system has them: how long a socket's path may be (`SUN_PATH`, with its NUL)
and connecting to one whose path is longer than that (a deep home's `forwarded/latest.sock`)."""

from __future__ import annotations

import os

from tui.core.system.facts import platform

TYPE_CHECKING = False  # not `from typing import`: the names module (wire.naming) reads SUN_PATH on `token`'s path
if TYPE_CHECKING:  # pragma: no cover
    import _socket

# bytes a Unix socket's path may take, the final NUL included: 104 on macOS and the BSDs, 108 on Linux
SUN_PATH = 104 if platform() == "darwin" or "bsd" in platform() else 108


def fits(path: str) -> bool:
    """A Unix socket can be bound or reached at `path` directly."""
    return len(os.fsencode(path)) < SUN_PATH


def connect(conn: _socket.socket, path: str) -> None:
    """`conn.connect(path)`, also for a path longer than a socket address holds: on Linux through
    the directory opened (`/proc/self/fd/N/NAME`), elsewhere through a link in a new private
    directory (0700, made and removed here). OSError as `connect` raises it."""
    if fits(path):
        conn.connect(path)
        return
    if platform().startswith("linux") and os.path.isdir("/proc/self/fd"):
        directory = os.open(os.path.dirname(path) or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            conn.connect(f"/proc/self/fd/{directory}/{os.path.basename(path)}")
        finally:
            os.close(directory)
        return
    private = f"/tmp/aa-{os.urandom(6).hex()}"  # noqa: S108 - short; made private (0700) and new (mkdir fails on any entry)
    os.mkdir(private, 0o700)
    link = os.path.join(private, "s")
    try:
        os.symlink(path, link)
        conn.connect(link)
    finally:
        for remove, where in ((os.unlink, link), (os.rmdir, private)):
            try:
                remove(where)
            except OSError:
                pass
