"""The system layer: platform facts behind one interface, chosen once; every system's peer
credentials read from recorded kernel answers; the facts taken away (`ASSISTANT_AUTH_SYSTEM=none`)
say nothing; and no module outside `tui/core/system` reads `/proc` or a socket option."""

from __future__ import annotations

import os
import pathlib
import re
import socket
import struct
import subprocess
import sys

from tui.core.system import peercred
from tui.core.system.locks import held
from tui.core.system.process import alive, process, this_program

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_linux_ucred_is_pid_uid_gid():
    assert peercred.linux_ucred(struct.pack("=iII", 4242, 1000, 1000)) == peercred.PeerCred(4242, 1000)
    assert peercred.linux_ucred(b"\0" * 4) == peercred.UNKNOWN


def test_openbsd_sockpeercred_is_uid_gid_pid():
    """Another field order than Linux's: read as such, never as (pid, uid)."""
    raw = struct.pack("=IIi", 1000, 20, 4242)
    assert peercred.openbsd_sockpeercred(raw) == peercred.PeerCred(4242, 1000)
    assert peercred.linux_ucred(raw) != peercred.PeerCred(4242, 1000)  # the mistake this avoids


def xucred(version: int, uid: int, pid: int | None = None) -> bytes:
    raw = peercred.XUCRED.pack(version, uid, 1, 20, *([0] * 15))
    if pid is not None:  # FreeBSD 13: the pointer-sized union after the groups
        raw += b"\0" * 4 + struct.pack("=i", pid) + b"\0" * 4
    return raw


def test_macos_xucred_with_its_peer_pid():
    assert peercred.xucred(xucred(0, 501), pid=777) == peercred.PeerCred(777, 501)
    assert peercred.xucred(xucred(0, 501)) == peercred.PeerCred(None, 501)  # no LOCAL_PEERPID: uid only


def test_freebsd_xucred_carries_its_pid_from_13():
    assert peercred.xucred(xucred(0, 1001, pid=31337)) == peercred.PeerCred(31337, 1001)


def test_an_unknown_xucred_version_is_unknown():
    assert peercred.xucred(xucred(7, 0, pid=1)) == peercred.UNKNOWN
    assert peercred.xucred(b"short") == peercred.UNKNOWN


def test_each_system_gets_its_reader_and_the_rest_nothing():
    assert peercred.reader_for("linux") is peercred._linux
    assert peercred.reader_for("openbsd7") is peercred._openbsd
    assert peercred.reader_for("darwin") is peercred._darwin
    assert peercred.reader_for("freebsd14") is peercred._freebsd
    assert peercred.reader_for("sunos5") is peercred._nothing
    assert peercred.reader_for("netbsd10") is peercred._nothing  # LOCAL_PEEREID is not read: unknown, said so


def test_this_machine_reads_a_real_peer():
    left, right = socket.socketpair(socket.AF_UNIX)
    try:
        found = peercred.peer_of(left)
        if sys.platform.startswith("linux"):
            assert found == peercred.PeerCred(os.getpid(), os.geteuid())
        assert peercred.peer_of(None) == peercred.UNKNOWN
    finally:
        left.close()
        right.close()


def test_the_process_table_names_this_process():
    me = process(os.getpid())
    if sys.platform.startswith("linux"):
        assert me is not None and me.uid == os.geteuid() and me.started is not None and me.argv
    assert process(None) is None and process(-1) is None
    assert alive(os.getpid())
    assert not this_program(os.getpid(), "agent")  # pytest is not our agent


def test_with_the_facts_taken_away_the_system_says_nothing():
    code = (
        "import os, socket; from tui.core.system import peercred, process; a, b = socket.socketpair(socket.AF_UNIX); "
        "print(peercred.peer_of(a) == peercred.UNKNOWN, process.process(os.getpid()) is None, "
        "process.this_program(os.getpid(), 'python'))"
    )
    env = {**os.environ, "ASSISTANT_AUTH_SYSTEM": "none"}
    said = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert said.stdout.split() == ["True", "True", "False"]


def test_a_flock_is_probed_not_looked_up(tmp_path):
    import fcntl

    path = tmp_path / "x.json.lock"
    path.write_text("")
    assert not held(str(path))
    with open(path) as holder:
        fcntl.flock(holder, fcntl.LOCK_SH)
        assert held(str(path))
    assert not held(str(path))
    os.mkfifo(tmp_path / "fifo")
    assert held(str(tmp_path / "fifo")) in (True, False)  # never waits on a FIFO
    (tmp_path / "link").symlink_to(path)
    assert held(str(tmp_path / "link"))  # never through a link: reported held, nothing removed on a guess


def test_no_module_outside_the_system_layer_reads_proc_or_a_socket_option():
    found = []
    for path in sorted((ROOT / "tui").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("tui/core/system/", "tui/dev/")):
            continue
        text = path.read_text()
        for number, line in enumerate(text.splitlines(), start=1):
            code = line.split("#", 1)[0]
            if re.search(r"""["'(]/proc/|getsockopt|SO_PEERCRED|LOCAL_PEER""", code):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == []
