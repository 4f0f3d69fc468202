"""Every repair of the private files goes through here, whichever face asks (`doctor --fix`, the
Doctor screen, the inspector's `m` and `x`).

A check reports a fact about one object (`Seen`: what `lstat` said of a path: which inode, which
mode, how old). A repair acts only on that same object and only while that same fact holds,
verified immediately before acting, on the object itself:

- the path is opened without following a link at any step below the config directory (each
  component with `O_NOFOLLOW`, directories with `O_DIRECTORY`), then `fstat`-ed: the inode must be
  the one seen and the reported fact still true;
- the change is made on that descriptor (a mode) or by name inside the directory already opened
  (a rename, an unlink, an `rmdir`), never through a link;
- a slot file is moved aside only under the slot's locks and only if it still does not parse; a
  lock directory is removed only if it is still stale at that instant.

When the fact no longer holds, nothing is changed and `NotDone` says so ("changed since it was
checked; nothing done"); a link is never followed: `NotDone` says where it points instead.
"""

from __future__ import annotations

import contextlib
import errno
import os
import pathlib
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tui.core.credentials.locks import hold_slot_sync, is_stale
from tui.core.credentials.slot import corrupt_name, parse_credentials
from tui.core.errors import AuthError
from tui.core.spec import paths
from tui.core.spec.keys import resolve_storage_name
from tui.core.system.fds import chmod_fd
from tui.core.system.locks import held
from tui.core.text.phrase import N_, Phrase
from tui.core.text.untrusted import one_line

THROUGH_A_LINK = N_("{path} is a symbolic link to {target}: nothing is changed through a link")
CANNOT_OPEN = N_("{path} cannot be opened ({reason}); nothing done")
CHANGED = Phrase(N_("changed since it was checked; nothing done"))
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class NotDone(Exception):
    """A repair changed nothing, and this says why (the object changed, or it is a link)."""

    def __str__(self) -> str:
        return one_line(super().__str__(), 1000)

    @property
    def reason(self) -> str:
        """Why, as one line: a `Phrase` (English as text, said in the reader's language)."""
        first = self.args[0] if self.args else ""
        return one_line(first if isinstance(first, str) else str(first), 1000)


@dataclass(frozen=True)
class Seen:
    """What a check saw of one path, with `lstat`: the object a repair may act on, and its state
    at that moment."""

    path: str
    dev: int
    ino: int
    mode: int  # the whole st_mode: type and permission bits
    uid: int
    mtime: float

    @property
    def permissions(self) -> int:
        return stat.S_IMODE(self.mode)

    @property
    def is_link(self) -> bool:
        return stat.S_ISLNK(self.mode)

    def same_object(self, info: os.stat_result) -> bool:
        return (info.st_dev, info.st_ino) == (self.dev, self.ino)


def seen(path: str | os.PathLike[str]) -> Seen | None:
    """The object at `path` as `lstat` sees it now (a link is seen as the link); None if absent."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return Seen(str(path), info.st_dev, info.st_ino, info.st_mode, info.st_uid, info.st_mtime)


def link_target(path: str | os.PathLike[str]) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return Phrase(N_("somewhere unreadable"))


@dataclass
class Repair:
    """A change a face offers: `change` says exactly what will change (shown before asking);
    `apply()` re-verifies and makes it, returning what it did, or raises `NotDone`."""

    change: str
    apply: Callable[[], str]
    preview: str = ""  # what changes, line by line (a diff), shown with `change` where there is room

    def __post_init__(self) -> None:
        self.change = one_line(self.change, 1000)  # paths of files others may name: one line


# -- opening below the config directory, never through a link ------------------------------------


def _parts(path: str) -> list[str]:
    """The components of `path` below the config directory ([] for the config directory itself);
    NotDone for a path outside it: repairs never reach outside."""
    root = os.path.abspath(paths.config_dir_str())
    target = os.path.abspath(path)
    if target == root:
        return []
    if not target.startswith(root + os.sep):
        raise NotDone(Phrase(N_("{path} is outside {root}; nothing done"), path=path, root=root))
    return target[len(root) + 1 :].split(os.sep)


def _refuse_link(path: str) -> None:
    info = seen(path)
    if info is not None and info.is_link:
        raise NotDone(Phrase(THROUGH_A_LINK, path=path, target=link_target(path)))


def _open_dir(parts: list[str]) -> int:
    """A descriptor of the directory the components name, walked from the config directory with
    O_NOFOLLOW at every step."""
    root = paths.config_dir_str()
    current = root
    try:
        fd = os.open(root, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
    except OSError as exc:
        _refuse_link(root)
        raise NotDone(Phrase(CANNOT_OPEN, path=root, reason=exc.strerror or exc)) from None
    for part in parts:
        current = os.path.join(current, part)
        try:
            inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
        except OSError as exc:
            os.close(fd)
            _refuse_link(current)
            raise NotDone(Phrase(CANNOT_OPEN, path=current, reason=exc.strerror or exc)) from None
        os.close(fd)
        fd = inner
    return fd


@contextlib.contextmanager
def _parent_and_name(path: str) -> Iterator[tuple[int, str]]:
    """(descriptor of the directory holding `path`, the last component), below the config dir."""
    parts = _parts(path)
    if not parts:
        raise NotDone(Phrase(N_("{path} is the config directory itself; nothing done"), path=path))
    fd = _open_dir(parts[:-1])
    try:
        yield fd, parts[-1]
    finally:
        os.close(fd)


def _lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _verify(what: Seen, info: os.stat_result | None) -> os.stat_result:
    """The object is still the one seen (not gone, not replaced, not a link now)."""
    if info is None:
        raise NotDone(Phrase(N_("{path} is gone: {changed}"), path=what.path, changed=CHANGED))
    if stat.S_ISLNK(info.st_mode):
        raise NotDone(
            Phrase(
                N_("{path} is now a symbolic link to {target}: {changed}"),
                path=what.path,
                target=link_target(what.path),
                changed=CHANGED,
            )
        )
    if not what.same_object(info):
        raise NotDone(Phrase(N_("{path} was replaced: {changed}"), path=what.path, changed=CHANGED))
    return info


# -- the repairs ---------------------------------------------------------------------------------


def fix_mode(what: Seen, mode: int) -> str:
    """chmod the object seen to `mode`, if it is still that object with the mode seen."""
    if what.is_link:
        raise NotDone(Phrase(THROUGH_A_LINK, path=what.path, target=link_target(what.path)))
    parts = _parts(what.path)
    if parts:
        with _parent_and_name(what.path) as (dir_fd, name):
            try:
                fd = os.open(
                    name, getattr(os, "O_PATH", os.O_RDONLY) | _NOFOLLOW | _CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd
                )
            except FileNotFoundError:
                raise NotDone(Phrase(N_("{path} is gone: {changed}"), path=what.path, changed=CHANGED)) from None
    else:
        fd = _open_dir([])
    try:
        info = _verify(what, os.fstat(fd))
        if stat.S_IMODE(info.st_mode) != what.permissions:
            raise NotDone(
                Phrase(
                    N_("{path} has mode {mode} now, not {seen}: {changed}"),
                    path=what.path,
                    mode=f"{stat.S_IMODE(info.st_mode):04o}",
                    seen=f"{what.permissions:04o}",
                    changed=CHANGED,
                )
            )
        _fchmod(fd, mode)
    finally:
        os.close(fd)
    return Phrase(N_("{path} is now {mode}"), path=what.path, mode=f"{mode:04o}")


def _fchmod(fd: int, mode: int) -> None:
    """chmod the object a descriptor holds: never a path lookup that could meet a link."""
    chmod_fd(fd, mode)


def still_unparsable(raw: bytes) -> bool:
    try:
        parse_credentials(raw.decode("utf-8"))
    except (AuthError, UnicodeDecodeError):
        return True
    return False


def move_aside(what: Seen, slot: str) -> str:
    """Rename an unusable slot file to `<name>.corrupt-<timestamp>`, under the slot's locks, only
    if it is still the file seen and still does not parse (the official client or a sign-in may
    have written a valid one meanwhile: then nothing is done). Nothing is ever deleted."""
    if what.is_link:
        raise NotDone(
            Phrase(
                N_("{path} is a symbolic link to {target}: nothing is moved through a link"),
                path=what.path,
                target=link_target(what.path),
            )
        )
    locks: contextlib.AbstractContextManager[object]
    try:
        resolve_storage_name(slot)
        locks = hold_slot_sync(slot, purpose=Phrase(N_("moving the unreadable file aside")))
    except AuthError:  # not a name any client writes: there are no locks to take
        locks = contextlib.nullcontext()
    with locks, _parent_and_name(what.path) as (dir_fd, name):
        try:
            fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | os.O_NONBLOCK, dir_fd=dir_fd)
        except FileNotFoundError:
            raise NotDone(Phrase(N_("{path} is gone: {changed}"), path=what.path, changed=CHANGED)) from None
        except OSError as exc:
            _refuse_link(what.path)
            raise NotDone(Phrase(CANNOT_OPEN, path=what.path, reason=exc.strerror or exc)) from None
        try:
            info = _verify(what, os.fstat(fd))
            raw = _read_all(fd) if stat.S_ISREG(info.st_mode) else b""
        finally:
            os.close(fd)
        if stat.S_ISREG(info.st_mode) and not still_unparsable(raw):
            raise NotDone(
                Phrase(
                    N_("{path} holds a valid sign-in now (written meanwhile): {changed}"),
                    path=what.path,
                    changed=CHANGED,
                )
            )
        target = corrupt_name(pathlib.Path(what.path)).name
        os.rename(name, target, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        moved = _lstat_at(dir_fd, target)
        if moved is None or not what.same_object(moved):  # swapped between the check and the rename
            with contextlib.suppress(OSError):
                os.rename(target, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            raise NotDone(Phrase(N_("{path} was replaced: {changed}"), path=what.path, changed=CHANGED))
    return Phrase(N_("moved to {path}"), path=os.path.join(os.path.dirname(what.path), target))


def _read_all(fd: int, limit: int = 1 << 20) -> bytes:
    chunks, total = [], 0
    while total <= limit:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def remove_stale_lock(what: Seen) -> str:
    """Remove an `oauth/<name>.lock` directory, only if it is still the directory seen and still
    stale at this instant (not renewed for more than 5 s, or stamped in the future): a holder
    that renewed it a moment ago keeps it."""
    with _parent_and_name(what.path) as (dir_fd, name):
        info = _verify(what, _lstat_at(dir_fd, name))
        age = time.time() - info.st_mtime
        if not stat.S_ISDIR(info.st_mode) or not is_stale(age):
            raise NotDone(
                Phrase(
                    N_("{path} was renewed {n} s ago: it is held; {changed}"),
                    path=what.path,
                    n=f"{max(age, 0):.0f}",
                    changed=CHANGED,
                )
            )
        os.rmdir(name, dir_fd=dir_fd)
    return Phrase(N_("removed the stale lock {path}"), path=what.path)


def remove_leftover(what: Seen, still: Callable[[os.stat_result], bool], reason: str) -> str:
    """Remove a regular file left behind (a killed writer's temp file, an old lock file no process
    holds), only if it is still that file and `still(info)` holds now."""
    with _parent_and_name(what.path) as (dir_fd, name):
        info = _verify(what, _lstat_at(dir_fd, name))
        if not stat.S_ISREG(info.st_mode) or not still(info):
            raise NotDone(
                Phrase(N_("{path} is {what} no longer: {changed}"), path=what.path, what=reason, changed=CHANGED)
            )
        os.unlink(name, dir_fd=dir_fd)
    return Phrase(N_("removed {path}"), path=what.path)


def remove_odd_entry(what: Seen) -> str:
    """Remove an entry of the wrong kind (a directory, FIFO, socket, device or link where a sign-in
    keeps a regular file), only while it is still that same object of that same kind: a link
    itself (never what it points to) or anything else but a directory with `unlink`, an empty
    directory with `rmdir`; a directory with files in it is left for the person to look into."""
    with _parent_and_name(what.path) as (dir_fd, name):
        info = _lstat_at(dir_fd, name)
        if info is None or not what.same_object(info) or stat.S_IFMT(info.st_mode) != stat.S_IFMT(what.mode):
            raise NotDone(Phrase(N_("{path} is gone or was replaced: {changed}"), path=what.path, changed=CHANGED))
        if stat.S_ISREG(info.st_mode):  # pragma: no cover - a check never offers it for a regular file
            raise NotDone(CHANGED)
        if not stat.S_ISDIR(info.st_mode):
            os.unlink(name, dir_fd=dir_fd)
        else:
            try:
                os.rmdir(name, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
                raise NotDone(
                    Phrase(
                        N_("{path} is a directory with files in it: look inside, then remove it by hand"),
                        path=what.path,
                    )
                ) from None
    return Phrase(N_("removed {path}"), path=what.path)


def older_than(seconds: float) -> Callable[[os.stat_result], bool]:
    return lambda info: time.time() - info.st_mtime > seconds


def unheld(path: str) -> Callable[[os.stat_result], bool]:
    return lambda info: not held(path)  # the lock itself probed, on every system
