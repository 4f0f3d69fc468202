"""Whether a process is one of this program's, as this user: `agent --stop` by pid and the
relay's notes believe a pid only then. Plain `os`: the relay notes are read on `token`'s path
through the agent when a forwarded connection has ended (`make bench`, figure 6c)."""

from __future__ import annotations

import os


def this_program(pid: int, command: bytes) -> bool:
    """Process `pid` runs this program's `command` (b"agent", b"relay"), as this user: a pid reused
    by another program, or another user's process, is never taken for one (never signalled)."""
    try:
        owner = os.stat(f"/proc/{pid}").st_uid
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            words = handle.read(65536).split(b"\0")
    except OSError:
        return False
    ours = any(word.endswith(b"assistant-auth") or word == b"tui.cli" for word in words)
    return owner == os.geteuid() and ours and command in words
