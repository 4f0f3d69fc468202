"""The proof that a client runs on the agent's own machine: the answer key the agent writes beside
its socket (`<socket>.key`, 0600, when it can ask a person or be asked to prove locality) can only
be read by a process of the person's on that machine. A client shows it with its request; a
forwarded connection cannot. Read through the one regular-file reader: never through a link,
never waiting on a FIFO, a private file of ours only."""

from __future__ import annotations

import os
import stat

from tui.core.agent.wire.naming import KEY_HEX, key_of
from tui.core.files.regular import read_regular_stat


def read_answer_key(socket_path: str) -> str | None:
    """The answer key of the agent at `socket_path`, or None: no key (the agent does not ask), not
    a private regular file of ours, or not readable here (another machine's agent)."""
    try:
        raw, info = read_regular_stat(key_of(socket_path), KEY_HEX + 1, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
        return None
    key = raw.decode("ascii", "replace")
    return key if len(key) == KEY_HEX and all(ch in "0123456789abcdef" for ch in key) else None
