"""What a descriptor can do where the system allows it."""

from __future__ import annotations

import os


def chmod_fd(fd: int, mode: int) -> None:
    """chmod the object `fd` holds, never through a path lookup that could meet a link: `fchmod`;
    on Linux an `O_PATH` descriptor, which `fchmod` refuses, through its `/proc/self/fd` entry
    (the descriptor itself, not a name). OSError where neither works."""
    try:
        os.fchmod(fd, mode)
    except OSError:
        if not os.path.isdir("/proc/self/fd"):
            raise
        os.chmod(f"/proc/self/fd/{fd}", mode)
