"""Who is at the other end of a Unix socket, where the system says: its pid and uid, or `UNKNOWN`.

One reader per system, chosen once (as libassuan's `accept_connection_bottom` does, one branch per
system): Linux's `SO_PEERCRED` (`struct ucred`: pid, uid, gid); OpenBSD's `SO_PEERCRED`
(`struct sockpeercred`: uid, gid, pid: another order, read as such); macOS's `LOCAL_PEERCRED`
(`struct xucred`, its version checked) with `LOCAL_PEERPID`; FreeBSD's `LOCAL_PEERCRED` (`xucred`,
whose `cr_pid` FreeBSD 13 added). Anything else, or a system that refuses the question, is
`UNKNOWN`: a case of its own that callers must treat as a stranger, never as "one of ours".

The decoders are pure (bytes in, `PeerCred` out), so recorded kernel answers test them on any
system. `ASSISTANT_AUTH_SYSTEM=none` (`tui.core.system.facts`) takes the facts away, as a system
that says nothing: the agent's tests run once more that way.
"""

from __future__ import annotations

import _socket  # not `socket`: its imports (enum, selectors) cost the client's path through the agent 7 ms
import struct
import sys

from tui.core.system.facts import says_nothing

TYPE_CHECKING = False  # not `from typing import`: on the client's path through the agent
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable


class PeerCred:
    """The peer's pid and uid as the kernel reported them (None: not reported)."""

    __slots__ = ("pid", "uid")

    def __init__(self, pid: int | None, uid: int | None) -> None:
        self.pid = pid
        self.uid = uid

    @property
    def known(self) -> bool:
        return self.uid is not None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PeerCred) and (self.pid, self.uid) == (other.pid, other.uid)

    def __hash__(self) -> int:
        return hash((self.pid, self.uid))

    def __repr__(self) -> str:
        return f"PeerCred(pid={self.pid}, uid={self.uid})"


UNKNOWN = PeerCred(None, None)

SOL_LOCAL = 0  # macOS and FreeBSD: the level of the local (Unix) socket options
LOCAL_PEERCRED = 0x001
LOCAL_PEERPID = 0x002  # macOS only
XUCRED_VERSION = 0
XUCRED = struct.Struct("=I I h 2x 16I")  # cr_version, cr_uid, cr_ngroups, (pad), cr_groups[16]
XUCRED_PID = struct.Struct("=i")  # FreeBSD 13+: the union after cr_groups holds cr_pid (padded to a pointer)


def linux_ucred(raw: bytes) -> PeerCred:
    """`struct ucred { pid_t pid; uid_t uid; gid_t gid; }`."""
    if len(raw) < 12:
        return UNKNOWN
    pid, uid, _gid = struct.unpack("=iII", raw[:12])
    return PeerCred(pid if pid > 0 else None, uid)


def openbsd_sockpeercred(raw: bytes) -> PeerCred:
    """`struct sockpeercred { uid_t uid; gid_t gid; pid_t pid; }`: uid first."""
    if len(raw) < 12:
        return UNKNOWN
    uid, _gid, pid = struct.unpack("=IIi", raw[:12])
    return PeerCred(pid if pid > 0 else None, uid)


def xucred(raw: bytes, pid: int | None = None) -> PeerCred:
    """`struct xucred` (macOS, FreeBSD), its version checked; `pid` from `LOCAL_PEERPID` (macOS),
    else FreeBSD 13's `cr_pid` after the groups when the kernel sent it."""
    if len(raw) < XUCRED.size:
        return UNKNOWN
    version, uid, _ngroups, *_groups = XUCRED.unpack_from(raw)
    if version != XUCRED_VERSION:
        return UNKNOWN
    if pid is None and len(raw) >= XUCRED.size + 8:  # the union is pointer-sized
        (found,) = XUCRED_PID.unpack_from(raw, XUCRED.size + (8 - XUCRED.size % 8) % 8)
        pid = found if found > 0 else None
    return PeerCred(pid, uid)


def _option(sock: _socket.socket, level: int, option: int, size: int) -> bytes | None:
    try:
        return sock.getsockopt(level, option, size)
    except (OSError, ValueError):
        return None


def _linux(sock: _socket.socket) -> PeerCred:
    raw = _option(sock, _socket.SOL_SOCKET, getattr(_socket, "SO_PEERCRED", 17), 12)
    return UNKNOWN if raw is None else linux_ucred(raw)


def _openbsd(sock: _socket.socket) -> PeerCred:
    raw = _option(sock, _socket.SOL_SOCKET, getattr(_socket, "SO_PEERCRED", 0x1022), 12)
    return UNKNOWN if raw is None else openbsd_sockpeercred(raw)


def _darwin(sock: _socket.socket) -> PeerCred:
    raw = _option(sock, SOL_LOCAL, LOCAL_PEERCRED, XUCRED.size)
    if raw is None:
        return UNKNOWN
    pid_raw = _option(sock, SOL_LOCAL, LOCAL_PEERPID, 4)
    pid = struct.unpack("=i", pid_raw[:4])[0] if pid_raw is not None and len(pid_raw) >= 4 else None
    return xucred(raw, pid if pid and pid > 0 else None)


def _freebsd(sock: _socket.socket) -> PeerCred:
    raw = _option(sock, SOL_LOCAL, LOCAL_PEERCRED, XUCRED.size + 8)
    return UNKNOWN if raw is None else xucred(raw)


def _nothing(sock: _socket.socket) -> PeerCred:
    return UNKNOWN


def reader_for(platform: str) -> Callable[[_socket.socket], PeerCred]:
    """The reader of `platform` (a `sys.platform` value)."""
    if platform.startswith("linux"):
        return _linux
    if platform.startswith("openbsd"):
        return _openbsd
    if platform == "darwin":
        return _darwin
    if platform.startswith("freebsd"):
        return _freebsd
    return _nothing


_read = _nothing if says_nothing() else reader_for(sys.platform)


def peer_of(sock: _socket.socket | None) -> PeerCred:
    """The peer of a connected Unix socket, or `UNKNOWN` where the system does not say."""
    return UNKNOWN if sock is None else _read(sock)
