"""What is at a slot's lock paths, decided in one place for the locks, `doctor` and repairs: the
paths, who holds a flock, the staleness rule of the directory lock and its honest age."""

from __future__ import annotations

import os
import stat
import time

from tui.core.errors import AuthError
from tui.core.spec import paths
from tui.core.text.phrase import N_, Phrase

STALE_AFTER = 5.0  # seconds: the official client's staleness limit for the directory lock
FUTURE_SLACK = 5.0  # seconds a lock's mtime may lie ahead of this clock (timestamp rounding, NFS)


class LockUnavailable(AuthError):
    """A lock file or directory could not be created (unwritable or odd config dir); `detail`
    says what, for callers that put it into their own message (a sign-in's write error)."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"{detail}; nothing was sent")
        self.detail = detail


def flock_path(storage_name: str) -> str:
    return os.path.join(paths.config_dir_str(), "credentials", f"{storage_name}.lock")


def legacy_lock_path(storage_name: str) -> str:
    """Where versions before the co-tenancy work kept their flock file; removed when we hold the slot."""
    return os.path.join(paths.config_dir_str(), "credentials", f"{storage_name}.json.lock")


def dir_lock_path(storage_name: str) -> str:
    return os.path.join(paths.config_dir_str(), "oauth", f"{storage_name}.lock")


# -- who holds a lock ---------------------------------------------------------------------------


def flock_holder(path: str) -> int | None:
    """The pid holding a flock on `path` where the system names it (`tui.core.system.locks`)."""
    from tui.core.system.locks import holder  # lazy: off token's path (the pid is words for a lock waited on)

    return holder(path)


def is_stale(age: float) -> bool:
    """The staleness rule of the directory lock, from its age (now minus its mtime): not renewed
    for more than 5 s (the official client's takeover rule), or stamped more than a few seconds in
    the future, which no live holder renewing with this clock can do (a clock that was ahead, a
    copied home, a planted directory). Both protocols' rules still hold for real holders."""
    return age > STALE_AFTER or age < -FUTURE_SLACK


def age_text(age: float) -> str:
    """An honest age: "renewed 3 s ago", or how far in the future its stamp lies."""
    if age >= -FUTURE_SLACK:
        return Phrase(N_("renewed {n} s ago"), n=f"{max(age, 0):.0f}")
    ahead = -age
    if ahead >= 2 * 86400:
        return Phrase(N_("stamped {n} days in the future (no live holder renews it so)"), n=f"{ahead / 86400:.0f}")
    return Phrase(N_("stamped {n} s in the future (no live holder renews it so)"), n=f"{ahead:.0f}")


class DirLockState:
    """What is at `oauth/<name>.lock`, decided in one place for the locks and for `doctor`."""

    ABSENT, HELD, STALE, LINK, NOT_DIR, FOREIGN = "absent", "held", "stale", "link", "not_dir", "foreign"
    __slots__ = ("path", "kind", "age", "uid", "detail")

    def __init__(
        self, path: str, kind: str, age: float | None = None, uid: int | None = None, detail: str = ""
    ) -> None:
        self.path, self.kind, self.age, self.uid, self.detail = path, kind, age, uid, detail

    def describe(self) -> str:
        """One sentence on what is there, for an error or a doctor finding."""
        if self.kind == self.LINK:
            return Phrase(
                N_("{path} is a symbolic link to {target}, not a lock directory"), path=self.path, target=self.detail
            )
        if self.kind == self.NOT_DIR:
            return Phrase(N_("{path} is {what}, not a lock directory"), path=self.path, what=self.detail)
        stale = self.age is not None and is_stale(self.age)
        if self.kind == self.FOREIGN:
            text = (
                N_("{path} (owned by uid {uid}, not by you) is stale: {age}")
                if stale
                else N_("{path} (owned by uid {uid}, not by you) is held: {age}")
            )
        else:
            text = N_("{path} is stale: {age}") if stale else N_("{path} is held: {age}")
        return Phrase(text, path=self.path, uid=self.uid, age=age_text(self.age or 0))


def dir_lock_state(path: str, now: float | None = None) -> DirLockState:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return DirLockState(path, DirLockState.ABSENT)
    except OSError as exc:
        return DirLockState(
            path, DirLockState.NOT_DIR, detail=Phrase(N_("unreadable ({reason})"), reason=exc.strerror or exc)
        )
    if stat.S_ISLNK(info.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = Phrase(N_("somewhere unreadable"))
        return DirLockState(path, DirLockState.LINK, detail=target)
    if not stat.S_ISDIR(info.st_mode):
        kind = Phrase(N_("a file")) if stat.S_ISREG(info.st_mode) else Phrase(N_("not a directory"))
        return DirLockState(path, DirLockState.NOT_DIR, uid=info.st_uid, detail=kind)
    age = (time.time() if now is None else now) - info.st_mtime
    if info.st_uid != os.getuid():
        return DirLockState(path, DirLockState.FOREIGN, age, info.st_uid)
    return DirLockState(path, DirLockState.STALE if is_stale(age) else DirLockState.HELD, age, info.st_uid)


def lock_age(path: str) -> float | None:
    """Seconds since the directory lock was last touched (negative: stamped in the future); None
    when absent or not a directory."""
    state = dir_lock_state(path)
    return state.age if state.kind in (DirLockState.HELD, DirLockState.STALE, DirLockState.FOREIGN) else None


def describe_flock(storage_name: str) -> str:
    path = flock_path(storage_name)
    pid = flock_holder(path)
    if pid:
        return Phrase(N_("the lock file {path} (held by process {pid})"), path=path, pid=pid)
    return Phrase(N_("the lock file {path}"), path=path)


def describe_dir_lock(storage_name: str) -> str:
    path = dir_lock_path(storage_name)
    age = lock_age(path)
    if age is None:
        return Phrase(N_("the lock directory {path} (held by another client)"), path=path)
    return Phrase(N_("the lock directory {path} (held by another client, {age})"), path=path, age=age_text(age))
