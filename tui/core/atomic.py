"""Atomic file writes: temporary file in the same directory, fsync, rename, fsync the directory."""

from __future__ import annotations

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


def atomic_write(path: pathlib.Path, data: bytes, mode: int = 0o600) -> None:
    """Replace `path` with `data` so that readers see the old or the new content, never a mix.

    The temporary file is created with `mode` from the start (O_CREAT|O_EXCL), so there is no
    window in which it is readable by others, whatever the umask; it then gets exactly `mode`
    (the umask cannot narrow or widen it). When `path` is a symbolic link (a dotfile manager's,
    or a file shared with another tool), the link's target is replaced and the link is kept:
    replacing the link would leave the other reader with the old, already-rotated tokens.
    """
    path = resolve_link(path)
    directory = path.parent
    tmp = directory / f".{path.name}.{os.urandom(6).hex()}.tmp"  # not `secrets`: hmac on the token path
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), mode)
    try:
        try:
            os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _remove_stale_temps(path)
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
