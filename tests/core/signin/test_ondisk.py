"""What Home, `status` and the overview read of the sign-in attempts (`ondisk`): the same as
`follow` reads, for every kind of file at a record's place, and nothing of the sign-in machinery
loaded where no record is on disk."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from tests.core.signin.test_follow import pending_record
from tui.core.signin import follow, ondisk, shown
from tui.core.spec.regions import Region


def ended_unseen(at: float | None = None) -> follow.Record:
    return follow.Record(follow.ENDED, Region.GLOBAL, at or time.time(), "a2", outcome="success", identity="Ada")


def plant(home, tmp_path, place: str, at: float) -> None:
    """A record's place as `place` says, started `at` (`old`: a pending record past the 24 hours kept)."""
    signin = home / "signin"
    if place == "pending":
        follow.write(pending_record(started_at=at, deadline=at + 600))
    elif place == "ended":
        follow.write(ended_unseen(at))
    elif place == "old":
        follow.write(pending_record(started_at=at - follow.KEEP - 60))
    elif place != "nothing":
        signin.mkdir(parents=True, mode=0o700)
        target = signin / "cn.json"
        if place == "link":
            (tmp_path / "elsewhere.json").write_text("{}")
            target.symlink_to(tmp_path / "elsewhere.json")
        elif place == "directory":
            target.mkdir()
        elif place == "others can write":
            follow.write(pending_record())
            os.chmod(target, 0o666)
        else:
            target.write_text("not json")
            os.chmod(target, 0o600)


def listing(home) -> list[str]:
    signin = home / "signin"
    return sorted(p.name for p in signin.iterdir()) if signin.is_dir() else []


@pytest.mark.parametrize(
    "place",
    ["nothing", "pending", "ended", "link", "directory", "others can write", "not json", "old"],
)
def test_ondisk_reads_what_follow_reads(home, tmp_path, place):
    """Each reader on a place of its own, planted alike: the same answers, and the same files
    left behind (a record past its 24 hours is removed by whichever reads it)."""
    at = time.time()
    plant(home, tmp_path, place, at)
    ours = (ondisk.waiting(), ondisk.away(), ondisk.waiting_in(Region.CN))
    left_by_ours = listing(home)
    shutil.rmtree(home / "signin", ignore_errors=True)
    plant(home, tmp_path, place, at)
    theirs = (shown.waiting(), shown.away(), shown.waiting_in(Region.CN))
    assert ours == theirs
    assert left_by_ours == listing(home)
    if place == "pending":
        assert ours[0] and ours[2] is not None  # not vacuous: the waiting attempt is found
    if place == "ended":
        assert ours[1] and ours[1][0].identity == "Ada"


def test_seen_removes_an_ended_record_and_leaves_a_pending_one(home):
    follow.write(ended_unseen())
    follow.write(pending_record())
    ondisk.seen(Region.GLOBAL)
    ondisk.seen(Region.CN)
    assert follow.read(Region.GLOBAL) is None
    assert follow.read(Region.CN) is not None


def test_without_a_record_the_sign_in_machinery_is_not_loaded(home):
    """The lock files a finished sign-in leaves (`<region>.lock`, never deleted) are no record."""
    (home / "signin").mkdir(parents=True, mode=0o700)
    (home / "signin" / "cn.lock").write_text("")
    code = (
        "import sys\n"
        "from tui.core.signin import ondisk\n"
        "from tui.core.spec.regions import Region\n"
        "assert ondisk.waiting() == [] and ondisk.away() == [] and ondisk.waiting_in(Region.CN) is None\n"
        "ondisk.seen(Region.CN)\n"
        "print(sorted(m for m in ('tui.core.signin.follow', 'tui.core.signin.record') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
