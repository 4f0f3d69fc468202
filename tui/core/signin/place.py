"""What each name in `<config_dir>/signin/` may be: the one place that decides it, for `follow`
(which reads and writes them), `ondisk` (which looks whether a record is there), `login`,
`status` and `doctor` (which report what is wrong).

Per region:

- `<region>.json`: the attempt's record;
- `<region>.lock` and `<region>.lease`: the poller's lease (`flock` on each of the two that is
  usable, `.lock` first: a version that knows only `.lock` is still excluded, and a wrong entry at
  one name never turns the lease off);
- `<region>.discard`: a request that the poller discard the attempt;
- `.<region>.json.<hex>.tmp`: a record being written.

Each is what sign-ins make: a regular file of the person's own that nobody else can write
(`wrong`). Anything else at one of these names (a directory, a FIFO, a socket, a device, a link)
is never used, never changes what a sign-in does, and is reported in one line (`odd`) by `login`
and `status`, and by `doctor`, whose `--fix` removes it.
"""

from __future__ import annotations

import os
import stat

from tui.core.files import ownfiles
from tui.core.text.phrase import N_, Phrase

TYPE_CHECKING = False  # not `from typing import`: names only
if TYPE_CHECKING:  # pragma: no cover
    from tui.core.spec.regions import Region

DIRECTORY = "signin"
RECORD, LOCK, LEASE, DISCARD = ".json", ".lock", ".lease", ".discard"
LEASE_FILES = (LOCK, LEASE)  # taken in this order
SUFFIXES = (RECORD, LOCK, LEASE, DISCARD)
KINDS = {
    stat.S_IFDIR: N_("a directory"),
    stat.S_IFIFO: N_("a FIFO"),
    stat.S_IFSOCK: N_("a socket"),
    stat.S_IFCHR: N_("a device"),
    stat.S_IFBLK: N_("a device"),
    stat.S_IFLNK: N_("a symbolic link"),
}
ODD = N_("{path} is {kind}, not a file sign-ins make: it is ignored; `assistant-auth doctor --fix` removes it.")


def file_name(region: Region, suffix: str) -> str:
    return region.value + suffix


def record_name(region: Region) -> str:
    return file_name(region, RECORD)


def wrong_kind(mode: int) -> str | None:
    """What an entry is when it is not a regular file (its `st_mode`), or None."""
    kind = stat.S_IFMT(mode)
    return None if kind == stat.S_IFREG else KINDS.get(kind, N_("not a regular file"))


def wrong(info: os.stat_result) -> str | None:
    """Why an entry (its `lstat`, or the `fstat` of what was opened) is not what sign-ins make, or
    None: a regular file, the person's own, writable by nobody else."""
    kind = wrong_kind(info.st_mode)
    return f"is {kind}" if kind is not None else ownfiles.distrust(info)


def odd(region: Region) -> list[Phrase]:
    """One line for each of the region's names that holds something of the wrong kind (the
    person's own files of the wrong owner or mode are `doctor`'s, as before)."""
    where = ownfiles.directory_path(DIRECTORY)
    lines = []
    for suffix in SUFFIXES:
        path = os.path.join(where, file_name(region, suffix))
        try:
            kind = wrong_kind(os.lstat(path).st_mode)
        except OSError:
            continue
        if kind is not None:
            lines.append(Phrase(ODD, path=path, kind=Phrase(kind)))
    return lines
