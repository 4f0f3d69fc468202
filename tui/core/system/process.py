"""Which process a pid is, where the system says: its owner, name, command line and start time
(`Process`), or None. One reader per system, chosen once (`tui.core.system.facts`): Linux reads
`/proc/<pid>/`; macOS, FreeBSD and any other POSIX system their process tables
(`tui.core.system.proctable`); a system that says nothing, nothing (the callers fail closed: a pid
they cannot place is never signalled, never taken for `ssh`).

Plain `os` and no dataclasses: `this_program` is read on `token`'s path through the agent when a
forwarded connection has ended (`make bench`, figure 6c)."""

from __future__ import annotations

import os

from tui.core.system.facts import chosen


class Process:
    """One process as the system describes it."""

    __slots__ = ("argv", "name", "pid", "started", "uid")

    def __init__(self, pid: int, uid: int | None, name: str, argv: list[str], started: int | None) -> None:
        self.pid = pid
        self.uid = uid
        self.name = name  # the executable's short name (`ssh`)
        self.argv = argv
        self.started = started  # in the system's own clock: with the pid, one process even after reuse

    @property
    def connection(self) -> tuple[int, int] | None:
        """(pid, start time): this process and no later one with its pid."""
        return None if self.started is None else (self.pid, self.started)


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(65536)
    except OSError:
        return None


def _linux(pid: int) -> Process | None:
    base = f"/proc/{pid}"
    try:
        uid: int | None = os.stat(base).st_uid
    except OSError:
        return None
    cmdline = _read(base + "/cmdline")
    if cmdline is None:
        return None
    argv = [word.decode("utf-8", "replace") for word in cmdline.split(b"\0")]
    while argv and argv[-1] == "":
        argv.pop()
    name = (_read(base + "/comm") or b"").decode("utf-8", "replace").strip()
    started = None
    stat = (_read(base + "/stat") or b"").decode("utf-8", "replace")
    try:
        started = int(stat.rsplit(")", 1)[1].split()[19])
    except (IndexError, ValueError):
        started = None
    return Process(pid, uid, name, argv, started)


def _from_table(pid: int) -> Process | None:
    """A system without `/proc`: its process table (its kernel, or the simulated one)."""
    from tui.core.system.proctable import REAL, Kernel, darwin, freebsd, posix  # lazy: no /proc here (ctypes, ps)

    system = chosen()
    kernel = system.kernel if isinstance(system.kernel, Kernel) else REAL
    read = darwin if system.platform == "darwin" else freebsd if system.platform.startswith("freebsd") else posix
    found = read(pid, kernel)
    if found is None:
        return None
    uid, name, argv, started = found
    return Process(pid, uid, name, argv, started)


def process(pid: int | None) -> Process | None:
    """The process `pid`, or None: gone, not ours to read, or a system that does not say."""
    if pid is None or pid <= 0:
        return None
    system = chosen()
    if system.says_nothing:
        return None
    return _linux(pid) if system.has_proc else _from_table(pid)


def alive(pid: int) -> bool:
    """A process `pid` exists (on every system: a signal 0, never sent)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: another user's, alive
        return True
    return True


def this_program(pid: int, command: str) -> bool:
    """Process `pid` runs this program's `command` ("agent", "relay"), as this user: a pid reused
    by another program, another user's process, or one the system cannot describe is never taken
    for one (never signalled)."""
    found = process(pid)
    if found is None or found.uid != os.geteuid():
        return False
    ours = any(word.endswith("assistant-auth") or word == "tui.cli" for word in found.argv)
    return ours and command in found.argv
