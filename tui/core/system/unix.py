"""Unix stream sockets made here, and nowhere else in the product (the checked connect on
`token`'s path is `endpoint.connect_checked`): the agent's listening socket, bound private from
the moment it exists; the channel a background agent is handed on; a descriptor it inherits,
taken as a socket only when it is the one it was told; a checked connection as a file-like
stream. Another system's endpoint (a named pipe) is a module beside this one, not a change in
every module that serves or answers."""

from __future__ import annotations

import os
import socket

from tui.core.system.endpoint import connect_checked

BACKLOG = 128


def listen_private(path: str) -> tuple[socket.socket, int]:
    """A socket listening at `path`, 0600 from the moment it exists (bound under umask 0177):
    (the socket, the inode bound, so that only this socket is ever removed). On failure nothing
    is left at `path` by this call, and OSError is raised as the system said it."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    bound = False
    try:
        old = os.umask(0o177)
        try:
            listener.bind(path)
            bound = True
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        inode = os.lstat(path).st_ino
        listener.listen(BACKLOG)
    except BaseException:
        listener.close()
        if bound:
            try:
                os.unlink(path)
            except OSError:
                pass
        raise
    return listener, inode


def channel_pair() -> tuple[socket.socket, socket.socket]:
    """Two connected stream sockets: this process's end and the one a child is handed."""
    return socket.socketpair()


def channel_on(descriptor: int) -> socket.socket:
    """A stream socket on a copy of `descriptor` (the channel a background agent finds on its
    stdin); the original stays open for the caller to let go."""
    return socket.socket(fileno=os.dup(descriptor))


def inherited_listener(descriptor: int, path: str) -> socket.socket:
    """The inherited `descriptor` as a listening Unix stream socket bound at `path`, or ValueError
    (no socket, another kind of socket, another path): the descriptor is then left open, not ours
    to close."""
    wrong = ValueError(f"descriptor {descriptor} is not the agent's socket at {path}")
    try:
        listener = socket.socket(fileno=descriptor)
    except OSError:
        raise wrong from None
    try:
        right = listener.family == socket.AF_UNIX and listener.type == socket.SOCK_STREAM
        if right and listener.getsockname() == path:
            return listener
    except OSError:
        pass
    listener.detach()
    raise wrong


def connect_stream(where: str, timeout: float) -> socket.socket:
    """`connect_checked` (the owner and peer checks every client makes) as a full socket object, one
    that gives a buffered reader (`makefile`): a connection that stays open and reads lines, each
    read bounded by `timeout` until the caller sets another."""
    checked = connect_checked(where, timeout)
    stream = socket.socket(fileno=checked.detach())
    # the descriptor is non-blocking (a timeout is kept that way), but the new object believes it
    # blocks: its reads would end at once with nothing read. The same timeout, said again.
    stream.settimeout(timeout)
    return stream
