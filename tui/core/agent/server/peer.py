"""Who is at the other end of an agent connection, as the system says: its pid and uid
(`SO_PEERCRED`), whether it is an `ssh` client (then the request came from a server, through the
forward: "forwarded"), which SSH connection that is (the ssh process: its pid and start time, so a
reused pid is another connection) and the host it reaches (read from its command line as ssh reads
it). A request's own words never decide any of this."""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

from tui.core.agent.ssh.sshline import Usage, split

LOCAL, FORWARDED = "local", "forwarded"


@dataclass(frozen=True)
class Peer:
    pid: int | None
    uid: int | None
    origin: str = LOCAL
    ssh: tuple[int, int] | None = None  # the SSH connection (ssh's pid, start time) it came through
    host: str = ""  # the host that ssh reaches, as its command line names it


def credentials(sock: socket.socket | None) -> tuple[int | None, int | None]:
    """(pid, uid) of the process at the other end, where the system says (Linux's SO_PEERCRED)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if sock is None or option is None:
        return None, None
    try:
        pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except OSError:
        return None, None
    return pid, uid


def peer_of(sock: socket.socket | None) -> Peer:
    pid, uid = credentials(sock)
    if pid is None or _read(f"/proc/{pid}/comm").strip() != "ssh":
        return Peer(pid, uid)
    return Peer(pid, uid, FORWARDED, _started(pid), host_of(_read(f"/proc/{pid}/cmdline").split("\0")))


def host_of(argv: list[str]) -> str:
    """The host an ssh command line reaches ("" when it names none, or cannot be read)."""
    try:
        _ours, _options, host, _command = split([word for word in argv[1:] if word != ""])
    except Usage:
        return ""
    return (host or "")[:255]


def _started(pid: int) -> tuple[int, int] | None:
    """(pid, start time in clock ticks since boot): one process, even after its pid is reused."""
    stat = _read(f"/proc/{pid}/stat")
    try:
        return pid, int(stat.rsplit(")", 1)[1].split()[19])
    except (IndexError, ValueError):
        return None


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(65536)
    except OSError:
        return ""
