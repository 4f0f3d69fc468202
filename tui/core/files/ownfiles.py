"""Small JSON records of this program's own, in private directories below the config directory
(`signin/`, `rejected/`): created 0700, opened with O_NOFOLLOW through a directory descriptor,
written atomically (a temporary file in the same directory, renamed), never through a link."""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Iterator
from typing import Any

from tui.core.spec import paths

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
DIRECTORY = getattr(os, "O_DIRECTORY", 0)
LIMIT = 65536  # bytes: a record is a few hundred


class RecordProblem(Exception):
    """The record directory or a file in it is not what this program makes (a link, a file…), or
    is not the person's own and private: then nothing in it is trusted."""


def distrust(info: os.stat_result) -> str | None:
    """Why a directory or record (its `fstat`, taken on the opened descriptor) is not to be
    trusted, or None: it must belong to the effective user and be writable by nobody else."""
    if info.st_uid != os.geteuid():
        return f"belongs to another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return f"is writable by others (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def directory_path(name: str) -> str:
    return os.path.join(paths.config_dir_str(), name)


def open_dir(name: str, create: bool) -> int | None:
    """A descriptor of `<config_dir>/<name>/` (created 0700 when asked), never through a link;
    None when it does not exist and was not to be created."""
    root = paths.config_dir_str()
    where = directory_path(name)
    if create:
        os.makedirs(root, mode=0o700, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            os.mkdir(where, 0o700)
    return open_trusted(where)


def open_trusted(where: str) -> int | None:
    """A descriptor of the directory `where`, never through a link, when it is a plain directory
    of the person's own that nobody else can write; None when it does not exist, RecordProblem
    otherwise (checked on the opened descriptor)."""
    try:
        fd = os.open(where, os.O_RDONLY | DIRECTORY | NOFOLLOW | CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RecordProblem(f"{where} is not a plain directory ({exc.strerror or exc})") from None
    info = os.fstat(fd)
    why = "is not a directory" if not stat.S_ISDIR(info.st_mode) else distrust(info)
    if why is not None:
        os.close(fd)
        raise RecordProblem(f"{where} {why}")
    return fd


def created_dir(name: str) -> int:
    """A descriptor of `<config_dir>/<name>/`, created 0700 if need be (`open_dir` with create)."""
    fd = open_dir(name, create=True)
    if fd is None:  # pragma: no cover - removed between mkdir and open: as if it were a link
        raise RecordProblem(f"{directory_path(name)} vanished while it was being created")
    return fd


@contextlib.contextmanager
def existing_dir(name: str) -> Iterator[int | None]:
    """For reading or removing: a descriptor of `<config_dir>/<name>/` while the block runs, or
    None when it is absent or not a plain directory of ours (nothing there to read)."""
    try:
        fd = open_dir(name, create=False)
    except RecordProblem:
        fd = None
    try:
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


def write_record(fd: int, name: str, record: dict[str, Any]) -> None:
    """Replace `name` in the directory `fd` with `record` as JSON, atomically (0600)."""
    tmp = f".{name}.{os.urandom(4).hex()}.tmp"
    data = (json.dumps(record, indent=2, ensure_ascii=True) + "\n").encode()
    try:
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC, 0o600, dir_fd=fd)
        try:
            os.fchmod(out, 0o600)
            os.write(out, data)
            os.fsync(out)
        finally:
            os.close(out)
        os.rename(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=fd)
        raise


def read_record(fd: int, name: str) -> dict[str, Any] | None:
    """The JSON object `name` in the directory `fd`, or None (absent, not a regular file, too big,
    not an object, a link). RecordProblem when it is not the person's own and private (checked on
    the opened descriptor): such a record is never trusted."""
    try:
        handle = os.open(name, os.O_RDONLY | NOFOLLOW | CLOEXEC | os.O_NONBLOCK, dir_fd=fd)
    except OSError:  # absent, or a link (never followed; an atomic write replaces the link itself)
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > LIMIT:
            return None
        why = distrust(info)
        if why is not None:
            raise RecordProblem(f"{name} {why}")
        raw = os.read(handle, LIMIT + 1)
    finally:
        os.close(handle)
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def unlink(fd: int, *names: str) -> None:
    for name in names:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=fd)
