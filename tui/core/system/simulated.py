"""macOS and FreeBSD simulated on Linux (`ASSISTANT_AUTH_SYSTEM=darwin` / `freebsd`): their
readers get the answers their kernels would give, built from what Linux's kernel says about the
same socket and process, so every decision that rests on them runs here as it would there.

- Socket options: macOS answers only at `SOL_LOCAL` (`LOCAL_PEERCRED`: an `xucred`;
  `LOCAL_PEERPID`: the pid), FreeBSD `LOCAL_PEERCRED` with `cr_pid` after the groups; neither has
  `SO_PEERCRED` (refused, as there).
- The process table: macOS's `proc_bsdinfo` and `KERN_PROCARGS2` (refused for another user's
  process unless root, as there), FreeBSD's `KERN_PROC_ARGS` and the system's `ps`.

Only the answers are built from Linux's; the decoders and every decision above them are the
other system's own."""

from __future__ import annotations

import _socket
import os
from collections.abc import Callable

from tui.core.system.layouts import (
    ARGC,
    BSDINFO,
    LOCAL_PEERCRED,
    LOCAL_PEERPID,
    PID,
    SO_PEERCRED_LINUX,
    SOL_LOCAL,
    UCRED,
    XUCRED,
    XUCRED_PID_AT,
    XUCRED_VERSION,
)
from tui.core.system.proctable import Kernel, _ps


def _ucred(sock: _socket.socket) -> tuple[int, int, int] | None:
    try:
        raw = sock.getsockopt(_socket.SOL_SOCKET, SO_PEERCRED_LINUX, UCRED.size)
    except (OSError, ValueError):
        return None
    pid, uid, gid = UCRED.unpack_from(raw)
    return pid, uid, gid


def xucred_of(uid: int, gid: int, pid: int | None = None) -> bytes:
    """An `xucred` as the kernel writes it; with `pid`, FreeBSD 13's `cr_pid` after the groups."""
    raw = XUCRED.pack(XUCRED_VERSION, uid, 1, gid, *([0] * 15))
    if pid is None:
        return raw
    return raw.ljust(XUCRED_PID_AT, b"\0") + PID.pack(pid) + b"\0" * 4


def darwin_option(sock: _socket.socket, level: int, option: int, size: int) -> bytes | None:
    if level != SOL_LOCAL:
        return None  # no SO_PEERCRED on macOS
    found = _ucred(sock)
    if found is None:
        return None
    pid, uid, gid = found
    if option == LOCAL_PEERCRED:
        return xucred_of(uid, gid)[:size]
    if option == LOCAL_PEERPID:
        return PID.pack(pid)[:size]
    return None


def freebsd_option(sock: _socket.socket, level: int, option: int, size: int) -> bytes | None:
    if level != SOL_LOCAL or option != LOCAL_PEERCRED:
        return None
    found = _ucred(sock)
    if found is None:
        return None
    pid, uid, gid = found
    return xucred_of(uid, gid, pid)[:size]


# -- the process table, from /proc -----------------------------------------------------------------


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 20)
    except OSError:
        return None


def _owner(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def _started(pid: int) -> tuple[int, int] | None:
    """(seconds, microseconds) since the epoch of the process's start, as macOS keeps it."""
    stat = (_read(f"/proc/{pid}/stat") or b"").decode("ascii", "replace")
    boot = next(
        (line.split()[1] for line in (_read("/proc/stat") or b"").decode().splitlines() if line.startswith("btime ")),
        None,
    )
    try:
        ticks = int(stat.rsplit(")", 1)[1].split()[19])
        since = int(boot or "")
    except (IndexError, ValueError):
        return None
    hertz = os.sysconf("SC_CLK_TCK")
    return since + ticks // hertz, (ticks % hertz) * 1_000_000 // hertz


def bsdinfo_of(pid: int) -> bytes | None:
    uid, started = _owner(pid), _started(pid)
    comm = (_read(f"/proc/{pid}/comm") or b"").strip()
    if uid is None or started is None or not comm:
        return None
    fields = [0, 0, 0, pid, 0, uid, 0, uid, 0, uid, 0, 0, comm[:16], comm[:32], 0, 0, 0, 0, 0, 0, *started]
    return BSDINFO.pack(*fields)


def procargs2_of(pid: int) -> bytes | None:
    if _owner(pid) not in (os.geteuid(), None) and os.geteuid() != 0:
        return None  # macOS: another user's arguments are not told
    cmdline = _read(f"/proc/{pid}/cmdline")
    if cmdline is None:
        return None
    words = cmdline.split(b"\0")
    if words and words[-1] == b"":
        words.pop()
    try:
        executable = os.fsencode(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        executable = words[0] if words else b""
    header = ARGC.pack(len(words)) + executable + b"\0"
    header = header.ljust((len(header) + 7) // 8 * 8, b"\0")
    return header + b"".join(word + b"\0" for word in words) + b"HOME=/nowhere\0"


def proc_args_of(pid: int) -> bytes | None:
    return _read(f"/proc/{pid}/cmdline")


def simulated(name: str) -> tuple[Callable[..., bytes | None], Kernel]:
    """The simulated system `name` ("darwin" or "freebsd14"): its socket options and its kernel."""
    if name == "darwin":
        return darwin_option, Kernel(procargs2=procargs2_of, bsdinfo=bsdinfo_of)
    return freebsd_option, Kernel(proc_args=proc_args_of, ps=_ps)
