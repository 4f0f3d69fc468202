"""Who is at the other end of a Unix socket, where the system says: its pid and uid, or `UNKNOWN`.

One reader per system, chosen once (as libassuan's `accept_connection_bottom` does, one branch per
system): Linux's `SO_PEERCRED` (`struct ucred`: pid, uid, gid); OpenBSD's `SO_PEERCRED`
(`struct sockpeercred`: uid, gid, pid: another order, read as such); macOS's `LOCAL_PEERCRED`
(`struct xucred`, its version checked) with `LOCAL_PEERPID`; FreeBSD's `LOCAL_PEERCRED` (`xucred`,
whose `cr_pid` FreeBSD 13 added). Anything else, or a system that refuses the question, is
`UNKNOWN`: a case of its own that callers must treat as a stranger, never as "one of ours".

The decoders are pure (bytes in, `PeerCred` out), so recorded kernel answers test them on any
system; `tui.core.system.facts` can take the facts away (`none`) or simulate macOS or FreeBSD on
Linux (their decoders fed answers built from Linux's own).
"""

from __future__ import annotations

import _socket  # not `socket`: its imports (enum, selectors) cost the client's path through the agent 7 ms

from tui.core.system.facts import chosen
from tui.core.system.layouts import (
    LOCAL_PEERCRED,
    LOCAL_PEERPID,
    PID,
    SO_PEERCRED_LINUX,
    SO_PEERCRED_OPENBSD,
    SOCKPEERCRED,
    SOL_LOCAL,
    UCRED,
    XUCRED,
    XUCRED_PID_AT,
    XUCRED_VERSION,
    XUCRED_WITH_PID,
)

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


def linux_ucred(raw: bytes) -> PeerCred:
    """`struct ucred { pid_t pid; uid_t uid; gid_t gid; }`."""
    if len(raw) < UCRED.size:
        return UNKNOWN
    pid, uid, _gid = UCRED.unpack_from(raw)
    return PeerCred(pid if pid > 0 else None, uid)


def openbsd_sockpeercred(raw: bytes) -> PeerCred:
    """`struct sockpeercred { uid_t uid; gid_t gid; pid_t pid; }`: uid first."""
    if len(raw) < SOCKPEERCRED.size:
        return UNKNOWN
    uid, _gid, pid = SOCKPEERCRED.unpack_from(raw)
    return PeerCred(pid if pid > 0 else None, uid)


def xucred(raw: bytes, pid: int | None = None) -> PeerCred:
    """`struct xucred` (macOS, FreeBSD), its version checked; `pid` from `LOCAL_PEERPID` (macOS),
    else FreeBSD 13's `cr_pid` after the groups when the kernel sent it."""
    if len(raw) < XUCRED.size:
        return UNKNOWN
    version, uid, _ngroups, *_groups = XUCRED.unpack_from(raw)
    if version != XUCRED_VERSION:
        return UNKNOWN
    if pid is None and len(raw) >= XUCRED_PID_AT + PID.size:
        (found,) = PID.unpack_from(raw, XUCRED_PID_AT)
        pid = found if found > 0 else None
    return PeerCred(pid, uid)


def kernel_option(sock: _socket.socket, level: int, option: int, size: int) -> bytes | None:
    """`getsockopt` as the kernel answers it; None when it refuses."""
    try:
        return sock.getsockopt(level, option, size)
    except (OSError, ValueError):
        return None


Option = "Callable[[_socket.socket, int, int, int], bytes | None]"  # (socket, level, option, size): the answer


def _linux(sock: _socket.socket, option: Callable[..., bytes | None] = kernel_option) -> PeerCred:
    raw = option(sock, _socket.SOL_SOCKET, SO_PEERCRED_LINUX, UCRED.size)
    return UNKNOWN if raw is None else linux_ucred(raw)


def _openbsd(sock: _socket.socket, option: Callable[..., bytes | None] = kernel_option) -> PeerCred:
    raw = option(sock, _socket.SOL_SOCKET, SO_PEERCRED_OPENBSD, SOCKPEERCRED.size)
    return UNKNOWN if raw is None else openbsd_sockpeercred(raw)


def _darwin(sock: _socket.socket, option: Callable[..., bytes | None] = kernel_option) -> PeerCred:
    raw = option(sock, SOL_LOCAL, LOCAL_PEERCRED, XUCRED.size)
    if raw is None:
        return UNKNOWN
    pid_raw = option(sock, SOL_LOCAL, LOCAL_PEERPID, PID.size)
    pid = PID.unpack_from(pid_raw)[0] if pid_raw is not None and len(pid_raw) >= PID.size else None
    return xucred(raw, pid if pid and pid > 0 else None)


def _freebsd(sock: _socket.socket, option: Callable[..., bytes | None] = kernel_option) -> PeerCred:
    raw = option(sock, SOL_LOCAL, LOCAL_PEERCRED, XUCRED_WITH_PID)
    return UNKNOWN if raw is None else xucred(raw)


def _nothing(sock: _socket.socket, option: Callable[..., bytes | None] = kernel_option) -> PeerCred:
    return UNKNOWN


def reader_for(platform: str) -> Callable[..., PeerCred]:
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


def peer_of(sock: _socket.socket | None) -> PeerCred:
    """The peer of a connected Unix socket, or `UNKNOWN` where the system does not say (on the
    system `tui.core.system.facts` chose once: this one, or one simulated, or none)."""
    if sock is None:
        return UNKNOWN
    system = chosen()
    return reader_for(system.platform)(sock, system.option or kernel_option)
