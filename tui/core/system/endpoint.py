"""Reaching the agent's socket, checked: the one way every client connects (`token` and every
command through `ask`, the wizard's answering connection, the agent's own look for a live one at
its place). The socket (where a link leads) must be this user's or root's before anything is
sent, and the process at the other end this user's or root's where the system says who it is
(the mirror of the agent's own peer check); a path longer than a socket address holds is reached
too (`sockets.connect`)."""

from __future__ import annotations

import _socket  # not `socket`: on `token`'s path through the agent
import errno
import os
import time

from tui.core.system.peercred import peer_of
from tui.core.system.sockets import connect


class Stranger(Exception):
    """The socket, or the process serving it, is another user's (`uid`): nothing was sent."""

    def __init__(self, uid: int) -> None:
        super().__init__(uid)
        self.uid = uid


def _trusted(uid: int) -> bool:
    return uid in (os.geteuid(), 0)


def _reach(where: str, timeout: float) -> _socket.socket:
    """A connected socket to `where` within `timeout`: a listener whose queue is full (a burst of
    connections it has not taken yet) answers EAGAIN at once, where a blocking connect would wait;
    so it is tried again, on a new socket, until the time is up (TimeoutError then)."""
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)  # the C socket: no context manager
        try:
            conn.settimeout(timeout)
            connect(conn, where)
            return conn
        except BlockingIOError:
            conn.close()
            if time.monotonic() + pause > deadline:
                raise TimeoutError(errno.ETIMEDOUT, "the socket's queue stayed full") from None
            time.sleep(pause)
            pause = min(pause * 2, 0.1)
        except OSError:
            conn.close()
            raise


def connect_checked(where: str, timeout: float) -> _socket.socket:
    """A connection to the Unix socket at `where`, trusted for who owns it; `Stranger` otherwise,
    OSError (TimeoutError among them) as `connect` raises it."""
    try:
        owner: int | None = os.stat(where).st_uid
    except OSError:
        owner = None  # nothing there (yet): `connect` says so in its own words
    if owner is not None and not _trusted(owner):
        raise Stranger(owner)
    conn = _reach(where, timeout)
    uid = peer_of(conn).uid  # None where the system does not say: the socket's owner was the check
    if uid is not None and not _trusted(uid):
        conn.close()
        raise Stranger(uid)
    return conn
