"""A second process holding a lock, as another command of ours or the official client holds it:
`flock` on a slot's lock file (created if missing) or on a directory (config.toml's own lock is
the config directory's), from the moment it says so until the test lets go (`release`) or ends."""

from __future__ import annotations

import contextlib
import os
import pathlib
import subprocess
import sys
from collections.abc import Iterator

HOLD = (
    "import fcntl, os, sys; "
    "fd = os.open(sys.argv[1], os.O_RDONLY if os.path.isdir(sys.argv[1]) else os.O_RDWR | os.O_CREAT, 0o600); "
    "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.readline()"
)


class Holder:
    """The holding process: started, and holding once constructed."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(pathlib.Path(path))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None and self.process.stdout.readline().strip() == "held"

    def release(self) -> None:
        """Let go now (the process ends, and its lock with it)."""
        assert self.process.stdin is not None
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


@contextlib.contextmanager
def holding(path: str | os.PathLike[str]) -> Iterator[Holder]:
    holder = Holder(path)
    try:
        yield holder
    finally:
        holder.stop()
