"""config.toml on disk against the snapshot an editor loaded: whether it moved since, and whether
that move was already told to the person (so it is said once, and a later notice stands)."""

from __future__ import annotations

from tui.core.config.edit import Snapshot, load_snapshot
from tui.core.errors import AuthError


class DiskWatch:
    def __init__(self) -> None:
        self.told: bytes | None = None  # the disk content whose change was last told

    def unseen(self, snapshot: Snapshot) -> Snapshot | None:
        """config.toml as it is now, when it is no longer `snapshot` and this change has not been
        told yet; None otherwise (also when it cannot be read right now)."""
        try:
            now = load_snapshot(snapshot.path)
        except AuthError:
            return None
        if now.raw == snapshot.raw or now.raw == self.told:
            return None
        return now

    def tell(self, now: Snapshot) -> None:
        self.told = now.raw

    def told_now(self, snapshot: Snapshot) -> None:
        """The change on disk, as it is now, has been told."""
        try:
            self.told = load_snapshot(snapshot.path).raw
        except AuthError:
            pass

    @staticmethod
    def moved(snapshot: Snapshot) -> bool:
        """config.toml is no longer the file `snapshot` was loaded from (or cannot be read)."""
        try:
            return load_snapshot(snapshot.path).raw != snapshot.raw
        except AuthError:
            return True
