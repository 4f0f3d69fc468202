"""The one way the core opens a file to read: regular files only, never blocking, bounded.

A FIFO or device named like a credential file or config.toml would hang a plain `open`; a huge
file would freeze a command. Symbolic links to regular files are followed (dotfile managers use
them). Plain `os` only: `assistant-auth token` reads through here.
"""

from __future__ import annotations

import os
import stat

MAX_FILE = 1 << 20  # 1 MiB: far beyond any credential file or config.toml


class _Refused(OSError):
    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"{path} is {reason}")
        self.reason = reason  # without the path, for a line that shows the path already

    def __str__(self) -> str:
        return str(self.args[0])


class NotRegularFile(_Refused):
    """The path exists but is not a regular file (a FIFO, a device, a directory, a socket)."""


class TooLarge(_Refused):
    """The file is larger than the bound."""


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit % (1 << 20) == 0 else f"{limit} bytes"


def read_regular(path: str | os.PathLike[str], limit: int = MAX_FILE, *, follow_symlinks: bool = True) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; FileNotFoundError when missing,
    NotRegularFile / TooLarge (with the path in the message) otherwise, other OSErrors as is
    (ELOOP for a symbolic link when `follow_symlinks` is False)."""
    return read_regular_stat(path, limit, follow_symlinks=follow_symlinks)[0]


def read_regular_stat(
    path: str | os.PathLike[str], limit: int = MAX_FILE, *, follow_symlinks: bool = True, head: bool = False
) -> tuple[bytes, os.stat_result]:
    """`read_regular`, and the `fstat` of the file it read (its owner and mode, at no extra cost).
    With `head`, a larger file is not refused: its first `limit` bytes are read (completion's
    look at a 50 MB known_hosts)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise NotRegularFile(path, kind)
        if info.st_size > limit and not head:
            raise TooLarge(path, f"larger than {_size(limit)}")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(limit + 1 - total, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                if head:
                    return b"".join(chunks)[:limit], info
                raise TooLarge(path, f"larger than {_size(limit)}")
        return b"".join(chunks), info
    finally:
        os.close(fd)


def describe(exc: OSError, with_path: bool = True) -> str:
    """A one-line detail for an error of `read_regular`."""
    if isinstance(exc, _Refused):
        return str(exc) if with_path else exc.reason
    return exc.strerror or str(exc)
