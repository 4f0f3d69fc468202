"""#59 3: every socket is made in `tui.core.system.unix`: attacked here on its own, with real
sockets. The agent's listener is private from birth and leaves nothing behind when it cannot
listen; an inherited descriptor is taken only when it is the listening Unix socket at the path it
was told (a file, a TCP socket, a datagram socket, a socket at another path are refused, and the
descriptor is left open: not ours to close); the checked stream reads lines."""

from __future__ import annotations

import os
import socket
import stat
import threading

import pytest

from tui.core.system import unix


@pytest.fixture
def short(tmp_path_factory):
    """A directory short enough for a socket's path on every system."""
    return tmp_path_factory.mktemp("u", numbered=True)


def test_the_listener_is_private_from_birth_and_its_inode_is_the_one_bound(short):
    path = str(short / "agent.sock")
    old = os.umask(0o000)  # a careless umask: the socket is still 0600
    try:
        listener, inode = unix.listen_private(path)
    finally:
        os.umask(old)
    with listener:
        info = os.lstat(path)
        assert stat.S_ISSOCK(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
        assert info.st_ino == inode
        assert listener.family == socket.AF_UNIX and listener.type == socket.SOCK_STREAM


def test_a_name_already_taken_is_left_as_it_is(short):
    path = short / "agent.sock"
    path.write_text("someone's file")
    with pytest.raises(OSError):
        unix.listen_private(str(path))
    assert path.read_text() == "someone's file"  # never removed: it was not ours


def test_the_umask_is_restored_whatever_happens(short):
    before = os.umask(0o022)
    os.umask(before)
    with pytest.raises(OSError):
        unix.listen_private(str(short / "missing-dir" / "agent.sock"))
    now = os.umask(before)
    os.umask(now)
    assert now == before


def test_an_inherited_listener_is_taken_when_it_is_the_one_named(short):
    path = str(short / "agent.sock")
    listener, _inode = unix.listen_private(path)
    copy = os.dup(listener.fileno())
    listener.close()
    adopted = unix.inherited_listener(copy, path)
    with adopted:
        assert adopted.getsockname() == path


@pytest.mark.parametrize("kind", ["file", "tcp", "datagram", "another path", "closed"])
def test_an_inherited_descriptor_that_is_not_the_agents_socket_is_refused_and_left_open(short, kind):
    path = str(short / "agent.sock")
    keep = []
    if kind == "file":
        handle = open(short / "plain", "w")  # noqa: SIM115 - closed below
        keep.append(handle)
        descriptor = handle.fileno()
    elif kind == "tcp":
        tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(1)
        keep.append(tcp)
        descriptor = tcp.fileno()
    elif kind == "datagram":
        dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        dgram.bind(path)
        keep.append(dgram)
        descriptor = dgram.fileno()
    elif kind == "another path":
        other, _inode = unix.listen_private(str(short / "other.sock"))
        keep.append(other)
        descriptor = other.fileno()
    else:
        descriptor = os.dup(0)
        os.close(descriptor)
    with pytest.raises(ValueError, match="is not the agent's socket"):
        unix.inherited_listener(descriptor, path)
    if kind != "closed":
        os.fstat(descriptor)  # still open: the caller's, not ours to close
    for thing in keep:
        thing.close()


def test_a_channel_pair_carries_a_line_both_ways_and_a_copy_of_a_descriptor_reads_it():
    ours, theirs = unix.channel_pair()
    with ours, theirs:
        copy = unix.channel_on(theirs.fileno())
        with copy:
            ours.sendall(b"handed\n")
            assert copy.recv(100) == b"handed\n"
            copy.sendall(b"ready\n")
            assert ours.recv(100) == b"ready\n"
        os.fstat(theirs.fileno())  # the original stays open for its owner


def test_the_checked_stream_reads_lines_from_a_listener_of_this_user(short):
    path = str(short / "agent.sock")
    listener, _inode = unix.listen_private(path)

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.sendall(b'{"ok": true}\nsecond\n')

    server = threading.Thread(target=serve)
    server.start()
    try:
        conn = unix.connect_stream(path, 5)
        with conn, conn.makefile("rb") as reader:
            assert reader.readline() == b'{"ok": true}\n'
            assert reader.readline() == b"second\n"
    finally:
        server.join(10)
        listener.close()


def test_nothing_listening_is_an_oserror_not_a_hang(short):
    with pytest.raises(OSError):
        unix.connect_stream(str(short / "nobody.sock"), 2)
