"""macOS, FreeBSD and the rest, tested on Linux: their kernels' answers recorded (bytes as their
kernels write them) and read by their decoders; a process table the test provides, through the
whole chain up to the agent's verdict (an `ssh` peer is forwarded, with its host and its
connection); the simulated systems (`ASSISTANT_AUTH_SYSTEM=darwin` / `freebsd`) giving the same
answers as Linux about the same process; `ps` as the fallback of any other POSIX system; and no
decoder that raises, whatever the bytes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from tests.waiting import until
from tui.core.agent.server.peer import FORWARDED, LOCAL, UNKNOWN, Peer, peer_of
from tui.core.system import facts, peercred, proctable
from tui.core.system.facts import System
from tui.core.system.process import process, this_program

# `sysctl {CTL_KERN, KERN_PROCARGS2, pid}` of `ssh -R … build-server` on macOS: argc, the
# executable's path, NUL padding, argv, then the environment
PROCARGS2_SSH = bytes.fromhex(
    "040000002f7573722f62696e2f7373680000000000000000737368002d52002f746d702f617373697374616e742d6175"
    "74682d303132333435363738396162636465662e736f636b3a2f55736572732f6164612f2e617373697374616e742d63"
    "6f64652f6167656e742f6167656e742e736f636b006275696c642d736572766572005445524d3d787465726d2d323536"
    "636f6c6f7200484f4d453d2f55736572732f61646100"
)
# `proc_pidinfo(4242, PROC_PIDTBSDINFO)`: uid 501, comm and name "ssh", started 1795770297.123456
BSDINFO_SSH = bytes.fromhex(
    "0140000002000000000000009210000004100000f501000014000000f501000014000000f50100001400000000000000"
    "737368000000000000000000000000007373680000000000000000000000000000000000000000000000000000000000"
    "070000000410000000000000030000100410000000000000b947096b0000000040e2010000000000"
)
# `getsockopt(SOL_LOCAL, LOCAL_PEERCRED)` on macOS: version 0, uid 501, 3 groups (20, 12, 61)
XUCRED_501 = bytes.fromhex("00000000f501000003000000140000000c0000003d000000" + "00" * 52)
# FreeBSD 14: the same, with cr_pid 4242 in the union after the groups (pointer-aligned)
XUCRED_501_PID = XUCRED_501 + bytes.fromhex("00000000" + "92100000" + "00000000")
# FreeBSD `sysctl {CTL_KERN, KERN_PROC, KERN_PROC_ARGS, pid}`: argv, NUL-terminated
PROC_ARGS_SSH = b"ssh\0-p\x002222\0ada@build-server\0"
PS_SSH = "  501 ssh              Fri Nov 27 07:55:01 2026"


def test_recorded_macos_answers_are_read():
    assert proctable.procargs2(PROCARGS2_SSH) == [
        "ssh",
        "-R",
        "/tmp/assistant-auth-0123456789abcdef.sock:/Users/ada/.assistant-code/agent/agent.sock",
        "build-server",
    ]
    assert proctable.bsdinfo(BSDINFO_SSH) == (501, "ssh", 1795770297 * 1_000_000 + 123456)
    assert peercred.xucred(XUCRED_501, pid=4242) == peercred.PeerCred(4242, 501)
    assert peercred.xucred(XUCRED_501) == peercred.PeerCred(None, 501)  # no LOCAL_PEERPID: no pid, never a guess


def test_recorded_freebsd_answers_are_read():
    assert peercred.xucred(XUCRED_501_PID) == peercred.PeerCred(4242, 501)
    assert proctable.proc_args(PROC_ARGS_SSH) == ["ssh", "-p", "2222", "ada@build-server"]
    uid, name, started = proctable.ps_line(PS_SSH)
    assert (uid, name) == (501, "ssh") and started > 0
    assert proctable.ps_line("  501 tmux: server     Fri Nov 27 07:55:01 2026")[1] == "tmux: server"


@pytest.mark.parametrize(
    "answer",
    [b"", b"\x04\0\0\0", b"\xff\xff\xff\xff/usr/bin/ssh\0ssh\0", b"\x09\0\0\0/usr/bin/ssh\0\0ssh\0-R\0"],
    ids=["empty", "argc only", "negative argc", "fewer words than argc"],
)
def test_a_short_or_odd_procargs2_places_nobody(answer):
    assert proctable.procargs2(answer) is None


def test_a_short_or_versioned_answer_is_unknown():
    assert proctable.bsdinfo(BSDINFO_SSH[:100]) is None
    assert peercred.xucred(b"\x01" + XUCRED_501[1:]) == peercred.UNKNOWN  # another xucred version: not read
    assert proctable.ps_line("ps: illegal option") is None and proctable.ps_line("501 ssh Fri Nov 99 7 2026") is None


@given(st.binary(max_size=400))
@settings(max_examples=300, deadline=None)
def test_no_decoder_raises_on_any_bytes(raw):
    proctable.procargs2(raw)
    proctable.proc_args(raw)
    proctable.bsdinfo(raw)
    peercred.xucred(raw)
    peercred.linux_ucred(raw)
    peercred.openbsd_sockpeercred(raw)


@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_no_ps_line_raises(text):
    proctable.ps_line(text)


# -- a process table the test provides, through to the agent's verdict -------------------------------


@pytest.fixture
def provided():
    """Install a system for this process (its peer options and its kernel), put back afterwards."""
    before = facts.chosen()
    yield facts.use_system
    facts.use_system(before)


def macos(table: dict[int, tuple[bytes, bytes]], peer_uid_pid: tuple[bytes, int]) -> System:
    raw_cred, pid = peer_uid_pid

    def option(sock, level, name, size):
        return {(0, 1): raw_cred, (0, 2): pid.to_bytes(4, sys.byteorder, signed=True)}.get((level, name))

    kernel = proctable.Kernel(
        procargs2=lambda p: table[p][1] if p in table else None, bsdinfo=lambda p: table[p][0] if p in table else None
    )
    return System("darwin", option, kernel)


def test_on_a_mac_an_ssh_peer_is_forwarded_with_its_host_and_connection(provided):
    provided(macos({4242: (BSDINFO_SSH, PROCARGS2_SSH)}, (XUCRED_501, 4242)))
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        who = peer_of(left)
    assert who == Peer(4242, 501, FORWARDED, (4242, 1795770297 * 1_000_000 + 123456), "build-server")


def test_on_a_mac_a_process_the_table_does_not_hold_is_a_stranger(provided):
    provided(macos({}, (XUCRED_501, 4242)))  # KERN_PROCARGS2 refused (another user's process), or gone
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert peer_of(left).origin == UNKNOWN


def test_on_freebsd_an_ssh_peer_is_forwarded_and_a_shell_is_local(provided):
    table = {4242: (PROC_ARGS_SSH, PS_SSH), 77: (b"zsh\0", "  501 zsh  Fri Nov 27 07:00:00 2026")}
    cred = {4242: XUCRED_501_PID, 77: XUCRED_501[:76] + bytes.fromhex("00000000" + "4d000000" + "00000000")}
    for pid, origin, host in ((4242, FORWARDED, "ada@build-server"), (77, LOCAL, "")):
        kernel = proctable.Kernel(
            proc_args=lambda p: table[p][0] if p in table else None,
            ps=lambda p, columns: table[p][1] if p in table and columns == proctable.PS_COLUMNS else None,
        )
        provided(System("freebsd14", lambda sock, level, name, size, pid=pid: cred[pid], kernel))
        left, right = socket.socketpair(socket.AF_UNIX)
        with left, right:
            who = peer_of(left)
        assert (who.pid, who.uid, who.origin, who.host) == (pid, 501, origin, host)


def test_openbsd_is_read_in_its_own_order(provided):
    raw = (501).to_bytes(4, sys.byteorder) + (20).to_bytes(4, sys.byteorder) + (4242).to_bytes(4, sys.byteorder)
    provided(System("openbsd7", lambda sock, level, name, size: raw if name == 0x1022 else None, proctable.Kernel()))
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert peercred.peer_of(left) == peercred.PeerCred(4242, 501)


# -- the simulated systems and ps, against Linux's own answers about the same process ----------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="simulated from Linux's own answers")
@pytest.mark.parametrize("name", ["darwin", "freebsd"])
def test_a_simulated_system_says_what_linux_says(provided, name):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "a word with spaces"])
    try:
        until(lambda: "a word with spaces" in getattr(process(child.pid), "argv", []), what="the child's exec")
        linux = process(child.pid)
        provided(facts.choose(name))
        assert facts.chosen().simulated and facts.chosen().platform.startswith(name)
        seen = process(child.pid)
        assert (seen.uid, seen.argv) == (linux.uid, linux.argv) and seen.name == linux.name
        assert seen.connection == process(child.pid).connection  # one start time, asked twice
        left, right = socket.socketpair(socket.AF_UNIX)
        with left, right:
            assert peercred.peer_of(left) == peercred.PeerCred(os.getpid(), os.geteuid())
            assert peer_of(left).origin == LOCAL
        assert not this_program(child.pid, "agent")
    finally:
        child.kill()
        child.wait()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the simulation is Linux's")
def test_a_simulated_mac_refuses_another_users_arguments_as_a_mac_does(provided, monkeypatch):
    from tui.core.system import simulated

    monkeypatch.setattr(simulated.os, "geteuid", lambda: 12345)  # not root, not the owner
    assert simulated.procargs2_of(os.getpid()) is None
    assert simulated.bsdinfo_of(os.getpid()) is not None  # the owner and name are told, the arguments not


def test_any_other_posix_system_asks_ps(provided):
    provided(System("sunos5", None, proctable.REAL))
    child = subprocess.Popen(["sleep", "60"])
    try:
        until(lambda: getattr(process(child.pid), "argv", []) == ["sleep", "60"], what="the child's exec")
        seen = process(child.pid)
        assert seen is not None and (seen.uid, seen.name, seen.argv) == (os.geteuid(), "sleep", ["sleep", "60"])
        assert seen.started is not None
    finally:
        child.kill()
        child.wait()
    assert process(child.pid) is None  # gone: nothing placed


def test_none_says_nothing_and_stops_nothing(provided):
    provided(facts.choose(facts.NONE))
    assert process(os.getpid()) is None and not this_program(os.getpid(), "python")
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert peer_of(left) == Peer(None, None, UNKNOWN)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="binds through Linux's /proc/self/fd")
@pytest.mark.parametrize("name", ["linux", "darwin"])
def test_a_socket_path_longer_than_an_address_is_reached_on_every_system(provided, tmp_path, monkeypatch, name):
    """Linux reaches it through its directory opened (`/proc/self/fd`); a system without that
    through a link in a new private directory, removed after."""
    from tui.core.system import sockets

    links: list[str] = []
    real_symlink = os.symlink
    monkeypatch.setattr(sockets.os, "symlink", lambda src, dst: (links.append(dst), real_symlink(src, dst))[1])

    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    directory = os.open(deep, os.O_RDONLY)
    server = socket.socket(socket.AF_UNIX)
    server.bind(f"/proc/self/fd/{directory}/agent.sock")
    server.listen(1)
    os.close(directory)
    provided(facts.choose("" if name == "linux" else name))
    client = socket.socket(socket.AF_UNIX)
    with server, client:
        sockets.connect(client, str(deep / "agent.sock"))
        accepted, _ = server.accept()
        accepted.close()
    assert len(links) == (0 if name == "linux" else 1)  # through a link only where there is no /proc
    assert not any(os.path.lexists(os.path.dirname(link)) for link in links)  # the link and its directory gone
