"""The process table of the systems without `/proc`, as their kernels answer it (psutil's way,
through `ctypes`, no third-party dependency):

- macOS: `proc_pidinfo(pid, PROC_PIDTBSDINFO)` (libproc's `struct proc_bsdinfo`: uid, name,
  start time) and `sysctl {CTL_KERN, KERN_PROCARGS2, pid}` (argc, the executable's path, argv);
- FreeBSD: `sysctl {CTL_KERN, KERN_PROC, KERN_PROC_ARGS, pid}` (argv, NUL-separated), with the
  owner, name and start time from `ps` (its kinfo_proc is read by `ps`, not by us);
- any other POSIX system: `ps` alone (`ps -o uid=,comm=,lstart= -p PID` and `ps -o args=`).

The decoders are pure (bytes in, values out): recorded kernel answers test them anywhere, and
`simulated` feeds them answers built from Linux's own, so the whole macOS or FreeBSD path runs
on a Linux machine (`ASSISTANT_AUTH_SYSTEM=darwin` / `freebsd`)."""

from __future__ import annotations

import os
import subprocess
import time

from tui.core.system.layouts import (
    ARGC,
    BSDINFO,
    BSDINFO_COMM,
    BSDINFO_NAME,
    BSDINFO_START,
    BSDINFO_UID,
    CTL_KERN,
    KERN_ARGMAX,
    KERN_PROC,
    KERN_PROC_ARGS,
    KERN_PROCARGS2,
    PROC_PIDTBSDINFO,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable

    Described = tuple[int | None, str, list[str], int | None] | None  # (uid, name, argv, start time)

PS_TIMEOUT = 5.0
ARGS_AT_MOST = 1 << 20  # a process's arguments are read up to 1 MiB
PS_COLUMNS = "uid=,comm=,lstart="


def bsdinfo(raw: bytes) -> tuple[int, str, int] | None:
    """(uid, name, start time in µs) of a `struct proc_bsdinfo`; None for a short answer."""
    if len(raw) < BSDINFO.size:
        return None
    fields = BSDINFO.unpack_from(raw)
    uid, comm, name = fields[BSDINFO_UID], fields[BSDINFO_COMM], fields[BSDINFO_NAME]
    start_sec, start_usec = fields[BSDINFO_START], fields[BSDINFO_START + 1]
    shown = (name.split(b"\0", 1)[0] or comm.split(b"\0", 1)[0]).decode("utf-8", "replace")
    return uid, shown, start_sec * 1_000_000 + start_usec


def procargs2(raw: bytes) -> list[str] | None:
    """argv of a `KERN_PROCARGS2` answer: argc (an int), the executable's path, NUL padding, then
    argc NUL-terminated words (the environment after them is never read)."""
    if len(raw) < ARGC.size:
        return None
    (argc,) = ARGC.unpack_from(raw)
    rest = raw[ARGC.size :]
    end = rest.find(b"\0")
    if argc < 0 or end < 0:
        return None
    rest = rest[end:].lstrip(b"\0")
    words = rest.split(b"\0")[:argc]
    return [word.decode("utf-8", "replace") for word in words] if len(words) == argc else None


def proc_args(raw: bytes) -> list[str]:
    """argv of a FreeBSD `KERN_PROC_ARGS` answer: NUL-terminated words."""
    words = raw.split(b"\0")
    while words and words[-1] == b"":
        words.pop()
    return [word.decode("utf-8", "replace") for word in words]


def ps_line(text: str) -> tuple[int, str, int] | None:
    """(uid, name, start time in seconds) of `ps -o uid=,comm=,lstart=` (LC_ALL=C): the uid is the
    first word, the start time the last five ("Fri Nov 27 07:55:01 2026"), the name what is between
    (it may hold spaces)."""
    words = text.split()
    if len(words) < 7 or not words[0].isdigit():
        return None
    try:
        started = int(time.mktime(time.strptime(" ".join(words[-5:]), "%a %b %d %H:%M:%S %Y")))
    except (ValueError, OverflowError):
        return None
    return int(words[0]), os.path.basename(" ".join(words[1:-5])), started


# -- the kernels: the real ones (ctypes, ps), each answer as bytes or text ----------------------------


def _sysctl(mib: list[int], size: int) -> bytes | None:
    """The answer to `sysctl(mib)` in a buffer of `size` bytes, or None when refused."""
    import ctypes  # lazy: only on a system without /proc, when a peer is placed

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        name = (ctypes.c_int * len(mib))(*mib)
        buffer = ctypes.create_string_buffer(size)
        length = ctypes.c_size_t(size)
        if libc.sysctl(name, ctypes.c_uint(len(mib)), buffer, ctypes.byref(length), None, ctypes.c_size_t(0)) != 0:
            return None
        return buffer.raw[: length.value]
    except (OSError, AttributeError, ValueError):
        return None


def _argmax() -> int:
    """How long a process's arguments may be (`KERN_ARGMAX`): the buffer for them (psutil's way)."""
    raw = _sysctl([CTL_KERN, KERN_ARGMAX], ARGC.size)
    found = ARGC.unpack_from(raw)[0] if raw is not None and len(raw) >= ARGC.size else 0
    return found if 0 < found <= ARGS_AT_MOST else ARGS_AT_MOST


def _kernel_procargs2(pid: int) -> bytes | None:
    return _sysctl([CTL_KERN, KERN_PROCARGS2, pid], _argmax())


def _kernel_proc_args(pid: int) -> bytes | None:
    return _sysctl([CTL_KERN, KERN_PROC, KERN_PROC_ARGS, pid], _argmax())


def _libproc_bsdinfo(pid: int) -> bytes | None:
    import ctypes  # lazy: as above

    try:
        libproc = ctypes.CDLL("/usr/lib/libproc.dylib", use_errno=True)
        buffer = ctypes.create_string_buffer(BSDINFO.size)
        got = libproc.proc_pidinfo(pid, PROC_PIDTBSDINFO, ctypes.c_uint64(0), buffer, BSDINFO.size)
    except (OSError, AttributeError):
        return None
    return buffer.raw if got == BSDINFO.size else None


PS = next((where for where in ("/bin/ps", "/usr/bin/ps") if os.path.isfile(where)), "/bin/ps")  # never $PATH's


def _ps(pid: int, columns: str) -> str | None:
    try:
        done = subprocess.run(  # noqa: S603 - the system's ps, with our own words and a number
            [PS, "-o", columns, "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=PS_TIMEOUT,
            env={**os.environ, "LC_ALL": "C"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


class Kernel:
    """Where a system's answers come from: the real kernel here, or a simulated one (`simulated`)."""

    def __init__(
        self,
        procargs2: Callable[[int], bytes | None] = _kernel_procargs2,
        bsdinfo: Callable[[int], bytes | None] = _libproc_bsdinfo,
        proc_args: Callable[[int], bytes | None] = _kernel_proc_args,
        ps: Callable[[int, str], str | None] = _ps,
    ) -> None:
        self.procargs2 = procargs2
        self.bsdinfo = bsdinfo
        self.proc_args = proc_args
        self.ps = ps


REAL = Kernel()


# -- one process, as each system describes it: (uid, name, argv, start time) or None ----------------


def darwin(pid: int, kernel: Kernel = REAL) -> Described:
    """macOS: `proc_bsdinfo` (owner, name, start) and `KERN_PROCARGS2` (argv; refused for another
    user's process unless root: then the process is not placed)."""
    info = kernel.bsdinfo(pid)
    found = bsdinfo(info) if info is not None else None
    if found is None:
        return None
    raw = kernel.procargs2(pid)
    argv = procargs2(raw) if raw is not None else None
    if argv is None:
        return None
    uid, name, started = found
    return uid, name, argv, started


def freebsd(pid: int, kernel: Kernel = REAL) -> Described:
    """FreeBSD: argv from `KERN_PROC_ARGS`; owner, name and start time from `ps` (its
    `kinfo_proc` changes layout between releases: `ps` reads it, not this program)."""
    raw = kernel.proc_args(pid)
    if raw is None:
        return None
    argv = proc_args(raw)
    return _with_ps(pid, argv, kernel)


def posix(pid: int, kernel: Kernel = REAL) -> Described:
    """Any other POSIX system: `ps` alone (argv split at spaces: a word with a space in it is two)."""
    args = kernel.ps(pid, "args=")
    if args is None:
        return None
    return _with_ps(pid, args.split(), kernel)


def _with_ps(pid: int, argv: list[str], kernel: Kernel) -> Described:
    line = kernel.ps(pid, PS_COLUMNS)
    found = ps_line(line) if line is not None else None
    if found is None:
        return None
    uid, name, started = found
    return uid, name, argv, started
