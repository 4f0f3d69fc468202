"""Atomic file writes: temporary file in the same directory, fsync, rename, fsync the directory."""

from __future__ import annotations

import errno
import os
import pathlib
import time

STALE_TEMP_AGE = 300  # seconds: a temporary file this old was left by a killed writer


def ensure_private_dir(path: pathlib.Path) -> None:
    """Create `path` (and missing parents) with mode 0700; existing directories are left alone."""
    missing = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            pass


def resolve_link(path: pathlib.Path) -> pathlib.Path:
    """The file a symbolic link finally points at (the path itself when it is no link)."""
    if not os.path.islink(path):
        return path
    return pathlib.Path(os.path.realpath(path))


class Reserved:
    """Room for a file's next content, proved before it is needed: a temporary file beside the
    file, created with `mode` from the start (O_CREAT|O_EXCL: no window in which others can read
    it, whatever the umask), filled with `size` bytes and flushed. When the disk is full or a
    file-size limit is in force, making it fails (OSError) and nothing else has happened yet.

    `commit(data)` writes `data` over the reserved bytes (blocks already allocated: a full disk
    or a size limit cannot fail it when `data` fits), cuts the file to its length, flushes it and
    renames it over the file: readers see the old content or the new, never a mix. `discard()`
    removes it. When the file is a symbolic link (a dotfile manager's, or a file shared with
    another tool), the link's target is replaced and the link kept: replacing the link would
    leave the other reader with the old, already-rotated tokens."""

    def __init__(self, path: pathlib.Path, size: int = 0, mode: int = 0o600) -> None:
        self.path = resolve_link(path)
        self.size = size
        self.tmp = (
            self.path.parent / f".{self.path.name}.{os.urandom(6).hex()}.tmp"
        )  # not `secrets`: hmac on the token path
        self.fd: int | None = os.open(
            self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), mode
        )
        try:
            os.fchmod(self.fd, mode)
            if size:
                _allocate(self.fd, size)
                os.fsync(self.fd)
        except BaseException:
            self.discard()
            raise

    def commit(self, data: bytes) -> None:
        fd = self.fd
        if fd is None:
            raise ValueError("this reservation was already used")
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            _write_all(fd, data)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
            os.close(fd)
            self.fd = None
            os.replace(self.tmp, self.path)
        except BaseException:
            self.discard()
            raise
        _remove_stale_temps(self.path)
        _fsync_dir(self.path.parent)

    def discard(self) -> None:
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = None
        try:
            os.unlink(self.tmp)
        except OSError:
            pass


def _allocate(fd: int, size: int) -> None:
    """Blocks for `size` bytes, taken now: `posix_fallocate` where the system has it (a tenth of
    the time of writing a megabyte of zeros), zeros written where the file system cannot."""
    allocate = getattr(os, "posix_fallocate", None)
    if allocate is not None:
        try:
            allocate(fd, 0, size)
            return
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                raise  # a full disk, a file-size limit: no room, which is the answer
    _write_all(fd, bytes(size))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_dir(directory: pathlib.Path) -> None:
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def atomic_write(path: pathlib.Path, data: bytes, mode: int = 0o600) -> None:
    """Replace `path` with `data` so that readers see the old or the new content, never a mix
    (a `Reserved` file of no size, committed at once)."""
    Reserved(path, 0, mode).commit(data)


def _remove_stale_temps(path: pathlib.Path) -> None:
    """Delete `.<name>.<hex>.tmp` siblings left by a writer that was killed mid-write."""
    prefix, now = f".{path.name}.", time.time()
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(prefix) and entry.name.endswith(".tmp"):
            try:
                if now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_AGE:
                    os.unlink(entry.path)
            except OSError:
                pass
