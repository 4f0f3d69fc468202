"""Restoring config.toml from the last good copy: the `config.toml.bak` the provider editor keeps.

Offered only when config.toml does not parse (or is too large for any reader) and the copy does (both read through the
regular-file policy: a link, a directory, a FIFO or a file of another user is never restored from
or over). The repair shows a diff first (secrets masked), re-checks right before acting, under
the lock every writer of ours takes, that both files are still the bytes it showed and that
config.toml still does not parse, keeps the broken file beside it as
`config.toml.corrupt-<time>`, as a broken credential file is (nothing is lost), and writes the copy atomically with the file's mode.
doctor (`--fix` and its screen) and the provider editor offer this one repair.
"""

from __future__ import annotations

import os
import pathlib
import stat
import time
from dataclasses import dataclass

from tui.core.config.edit import mask_secrets, masked_diff
from tui.core.config.guard import config_edit
from tui.core.config.read import BOM, decode_config, parse_config, parse_config_readonly
from tui.core.credentials.repairs import CHANGED, NotDone, Repair
from tui.core.credentials.slot import corrupt_name
from tui.core.errors import AuthError
from tui.core.files.atomic import atomic_write
from tui.core.files.regular import MAX_FILE, read_regular_stat
from tui.core.spec import paths
from tui.core.text.phrase import N_, Phrase

BACKUP_SUFFIX = ".bak"


def backup_path(path: pathlib.Path) -> pathlib.Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


BROKEN_AT_MOST = 64 << 20  # a config.toml too large to read (over MAX_FILE) is still restored from, up to this


def _parses(raw: bytes) -> bool:
    """Every reader takes it (within their size bound) and both of our parsers read it: a copy
    restored must be one every reader and the editor take; a file too large is one none does."""
    if len(raw) > MAX_FILE:
        return False
    try:
        text = decode_config(raw)
        parse_config_readonly(text)
        parse_config(text)
    except AuthError:
        return False
    return True


def _owned_regular(path: pathlib.Path, limit: int = MAX_FILE) -> tuple[bytes, os.stat_result] | None:
    """The bytes of a regular file of the person's own at `path` (never through a link, at most
    `limit`), else None."""
    try:
        raw, info = read_regular_stat(path, limit, follow_symlinks=False)
    except OSError:
        return None
    if info.st_uid != os.geteuid() or not stat.S_ISREG(info.st_mode):
        return None
    return raw, info


@dataclass(frozen=True)
class Restore:
    """What restoring would do, as seen now: the broken file and the copy, byte for byte."""

    path: pathlib.Path
    broken: bytes
    backup: bytes
    mode: int
    saved_at: float = 0.0  # when the provider editor kept the copy: config.toml as it was before that save

    @property
    def saved(self) -> str:
        """When the copy was kept, as a person reads a clock: "2026-11-28 14:02"."""
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.saved_at))

    def what(self) -> str:
        """What the copy is, in one sentence (a `Phrase`): from before the editor's last save, so
        a restore also undoes that save and anything written after it."""
        return Phrase(
            N_(
                "{backup} is config.toml as it was before the provider editor's save at {saved}: restoring it "
                "also undoes that save and later edits (the broken file is kept beside it)."
            ),
            backup=backup_path(self.path).name,
            saved=self.saved,
        )

    def diff(self) -> str:
        """What changes in config.toml, secrets masked (the broken side by its line patterns); a
        file too large for any reader is replaced whole: its size, then the copy (no line-by-line
        comparison of megabytes)."""
        new = self.backup.decode("utf-8", errors="replace").removeprefix(BOM)
        if len(self.broken) > MAX_FILE:
            size = Phrase(
                N_("{name}: {size} MiB, more than a reader takes ({most} MiB)"),
                name=self.path.name,
                size=f"{len(self.broken) / (1 << 20):.1f}",
                most=MAX_FILE >> 20,
            )
            lines = [f"# {size}", f"# {Phrase(N_('replaced whole by its copy:'))}"]
            lines += [f"+{line}" for line in mask_secrets(new).splitlines()]
            return "\n".join(lines) + "\n"
        old = self.broken.decode("utf-8", errors="replace").removeprefix(BOM)
        return masked_diff(old, new, self.path.name)

    def repair(self) -> Repair:
        change = Phrase(
            N_(
                "restore {path} from {backup}, the copy from before the provider editor's save at {saved} "
                "(the broken file is kept beside it)"
            ),
            path=self.path,
            backup=backup_path(self.path),
            saved=self.saved,
        )
        return Repair(change, self.apply, preview=self.diff())

    def apply(self) -> str:
        with config_edit():  # no writer of ours lands between the re-check and the write
            now = _owned_regular(self.path, BROKEN_AT_MOST)
            if now is None or now[0] != self.broken:
                raise NotDone(Phrase(N_("{path} {changed}"), path=self.path, changed=CHANGED))
            if _parses(now[0]):
                raise NotDone(
                    Phrase(N_("{path} parses now (mended meanwhile): {changed}"), path=self.path, changed=CHANGED)
                )
            copy = _owned_regular(backup_path(self.path))
            if copy is None or copy[0] != self.backup:
                raise NotDone(Phrase(N_("{path} {changed}"), path=backup_path(self.path), changed=CHANGED))
            kept = corrupt_name(self.path)
            atomic_write(kept, self.broken, mode=self.mode)
            atomic_write(self.path, self.backup, mode=self.mode)
        return Phrase(
            N_("restored {path} from {backup}; the broken file is kept as {kept}"),
            path=self.path,
            backup=backup_path(self.path),
            kept=kept,
        )


def restore_offer(path: pathlib.Path | None = None) -> Restore | None:
    """A restore when config.toml is a regular file of the person's that does not parse (or is
    too large for any reader) and its `.bak` is one that does; None otherwise (nothing to offer:
    fix it by hand)."""
    path = path or paths.config_path()
    current = _owned_regular(path, BROKEN_AT_MOST)
    if current is None or _parses(current[0]):
        return None
    copy = _owned_regular(backup_path(path))
    if copy is None or not _parses(copy[0]) or copy[0] == current[0]:
        return None
    return Restore(path, current[0], copy[0], stat.S_IMODE(current[1].st_mode), copy[1].st_mtime)
